import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";

/** Where `nsenter` (util-linux) is looked for: fixed places, never `PATH`. */
const NSENTER_CANDIDATES = ["/usr/bin/nsenter", "/bin/nsenter"];

/**
 * Detaches (`umount -l`, through `nsenter --mount`) every copy of the file
 * systems on `loopDevices` (`/dev/loopN`) that another mount namespace on the
 * host still holds. A namespace made with private propagation while a
 * bounded workspace was mounted (`unshare --mount`, as a test harness or an
 * administrator runs it) keeps its own copy of the mount: the unmount here
 * does not reach it, and the loop device stays busy until that namespace
 * ends. The copies are found by device number in each process's mountinfo,
 * wherever they appear there. Needs root; returns how many copies it detached
 * (0 when it cannot look or enter).
 */
export async function detachForeignCopies(loopDevices: readonly string[]): Promise<number> {
  const numbers = new Set<string>();
  for (const device of loopDevices) {
    const name = device.replace(/^\/dev\//, "");
    const number = await readFile(join("/sys/block", name, "dev"), "utf8").catch(() => "");
    if (number.trim() !== "") numbers.add(number.trim());
  }
  const nsenter = await firstPresent(NSENTER_CANDIDATES);
  if (numbers.size === 0 || nsenter === undefined) return 0;
  const own = await readlink("/proc/self/ns/mnt").catch(() => "");
  const seen = new Set([own]);
  let detached = 0;
  for (const pid of (await readdir("/proc").catch(() => [] as string[])).filter((entry) => /^\d+$/.test(entry))) {
    const namespace = await readlink(`/proc/${pid}/ns/mnt`).catch(() => "");
    if (namespace === "" || seen.has(namespace)) continue;
    seen.add(namespace);
    const table = await readFile(`/proc/${pid}/mountinfo`, "utf8").catch(() => "");
    const mountPoints = table
      .split("\n")
      .map((line) => line.split(" "))
      .filter((fields) => numbers.has(fields[2] ?? ""))
      .map((fields) => decodeMountField(fields[4] ?? ""))
      // Deepest first: a copy mounted beneath another goes before it.
      .sort((a, b) => b.length - a.length);
    for (const mountPoint of mountPoints) {
      const ok = await run(nsenter, [`--mount=/proc/${pid}/ns/mnt`, "--", "umount", "-l", mountPoint]);
      if (ok) detached++;
    }
  }
  return detached;
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function decodeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

async function firstPresent(candidates: readonly string[]): Promise<string | undefined> {
  for (const candidate of candidates) {
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

/** Runs a program with an empty environment (but a `PATH` for `umount` in the other namespace); `true` when it succeeded. */
function run(file: string, args: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(file, args, { env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" }, timeout: 10_000 }, (error) =>
      resolve(!error),
    );
  });
}
