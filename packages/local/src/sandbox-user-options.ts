import { keyList } from "@sandport/core";
import type { OptionReader } from "@sandport/core/adapter";
import type { SandboxUser, UidRange } from "./options.js";

/** Validates the `sandboxUser` option: `{ uid, gid }`, never root. */
export function checkUser(value: unknown, read: OptionReader): SandboxUser {
  const user = value as SandboxUser | null;
  const valid = (id: unknown) => Number.isInteger(id) && (id as number) > 0 && (id as number) < 4_294_967_295;
  if (typeof user !== "object" || user === null || !valid(user.uid) || !valid(user.gid)) {
    throw read.refuse("sandboxUser", "must be { uid, gid }: positive integers (never 0, root)");
  }
  read.known(user, keyList<SandboxUser>({ uid: true, gid: true }), "sandboxUser.");
  return Object.freeze({ uid: user.uid, gid: user.gid });
}

/** Above the 16-bit uids (system and regular accounts, `nobody`), below those tools read as negative numbers. */
const UID_RANGE_BOUNDS = { lowest: 65_536, highest: 2 ** 31 - 1 };

/**
 * Validates the `sandboxUids` option; `directoryOf` checks its marker directory (`undefined` when not given)
 * and applies the default.
 */
export function checkUidRange(
  value: unknown,
  read: OptionReader,
  directoryOf: (directory: unknown) => string,
): Required<UidRange> {
  const range = value as UidRange | null;
  const { lowest, highest } = UID_RANGE_BOUNDS;
  if (
    typeof range !== "object" ||
    range === null ||
    !Number.isInteger(range.first) ||
    !Number.isInteger(range.count) ||
    range.count < 1 ||
    range.first < lowest ||
    range.first + range.count - 1 > highest
  ) {
    throw read.refuse(
      "sandboxUids",
      `must be { first, count }: integers, count at least 1, every uid from ${lowest} to ${highest}`,
    );
  }
  read.known(range, keyList<UidRange>({ first: true, count: true, directory: true }), "sandboxUids.");
  const directory = directoryOf(range.directory);
  return Object.freeze({ first: range.first, count: range.count, directory });
}
