import { invalidRequest } from "../errors/factories.js";
import type { Labels } from "../port/labels.js";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "../port/reserved-labels.js";
import { RESERVED_LABEL_PREFIX } from "../validation/labels.js";

/** The owner every runtime uses when none is configured. */
export const DEFAULT_OWNER = "sandport";

const OWNER = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The one rule for an ownership marker, in every runtime: 1-64 characters of
 * `[A-Za-z0-9._-]` (fits a label value, a tag and a name prefix on every
 * provider). `undefined` gives {@link DEFAULT_OWNER}.
 */
export function validateOwner(value: unknown, provider?: string): string {
  if (value === undefined) return DEFAULT_OWNER;
  if (typeof value !== "string" || !OWNER.test(value)) {
    throw invalidRequest("owner must be 1-64 characters of [A-Za-z0-9._-]", { field: "owner" }, provider);
  }
  return value;
}

/** What a launch stores as labels: the caller's labels plus the ownership marker and the launch key. */
export function ownerLabels(owner: string, labels: Labels | undefined, launchKey: string): Labels {
  return { ...labels, [OWNER_LABEL]: owner, [LAUNCH_KEY_LABEL]: launchKey };
}

/** True when stored labels carry `owner`'s ownership marker. */
export function isOwnedBy(stored: Readonly<Record<string, string>> | undefined, owner: string): boolean {
  return stored !== undefined && Object.hasOwn(stored, OWNER_LABEL) && stored[OWNER_LABEL] === owner;
}

/** True when every label of `query` (reserved ones included) is present in `stored` with the same value. */
export function matchesLabels(stored: Readonly<Record<string, string>>, query: Labels): boolean {
  return Object.entries(query).every(([key, value]) => Object.hasOwn(stored, key) && stored[key] === value);
}

/** The caller's labels among stored ones: everything but Sandport's reserved `sandport.*` keys. */
export function callerLabels(stored: Readonly<Record<string, string>> | undefined): Labels {
  return Object.freeze(
    Object.fromEntries(Object.entries(stored ?? {}).filter(([key]) => !key.startsWith(RESERVED_LABEL_PREFIX))),
  );
}

/**
 * How an adapter stores labels where the provider cannot hold them as plain
 * key/value metadata (a few tags, a name): `encode` what a launch stores,
 * `decode` it back to labels (reserved ones included) for `isOwnedBy`,
 * `matchesLabels` and `callerLabels`. A provider with metadata uses
 * {@link metadataCodec}; one with limits writes its own codec instead of
 * forking these helpers.
 */
export interface OwnershipCodec<Stored> {
  /** What a launch stores for `owner`, the caller's `labels` and the `launchKey`. */
  encode(owner: string, labels: Labels | undefined, launchKey: string): Stored;
  /** The labels (reserved ones included) that `stored` carries; `undefined` when it is not Sandport's encoding. */
  decode(stored: Stored): Labels | undefined;
}

/** The codec for providers with key/value metadata: labels are stored as they are. */
export const metadataCodec: OwnershipCodec<Readonly<Record<string, string>>> = Object.freeze({
  encode: ownerLabels,
  decode: (stored: Readonly<Record<string, string>>) => stored,
});
