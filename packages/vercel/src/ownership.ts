import { LAUNCH_KEY_LABEL, type Labels } from "@sandport/core";
import { isOwnedBy, type OwnershipCodec, ownerLabels } from "@sandport/core/adapter";

/** Characters of a sandbox name (and of the name prefix). */
export const NAME_CHARACTERS = /^[A-Za-z0-9._-]+$/;
/** The longest sandbox name this adapter creates or looks up. */
export const MAX_NAME_LENGTH = 128;
/**
 * Tags one sandbox can carry on Vercel. One holds the ownership marker
 * (`sandport.owner`), so a launch takes at most {@link MAX_LABELS} labels.
 */
export const MAX_TAGS = 5;
/** Labels a launch may carry: every tag but the ownership marker's. */
export const MAX_LABELS = MAX_TAGS - 1;

/** What Vercel keeps of a sandbox that says whose it is: its name and its tags. */
export interface StoredIdentity {
  readonly name: string;
  readonly tags?: Readonly<Record<string, string>> | undefined;
}

/**
 * How a Vercel sandbox says it is ours. Vercel addresses sandboxes by name
 * and holds at most five tags, filtering a list by one of them, so:
 *
 * - the name is `<namePrefix><launch key>`: the prefix is the ownership
 *   boundary (a name outside it is never ours, decided without a request),
 *   and the launch key lives in the name, where the list API can filter it;
 * - the tags are the caller's labels plus `sandport.owner`, which tells two
 *   owners apart even when one's prefix starts the other's.
 *
 * A sandbox is ours when both hold; {@link decode} gives its labels, reserved
 * ones included, for the kit's `isOwnedBy` and `matchesLabels`.
 */
export class NameOwnership implements OwnershipCodec<StoredIdentity> {
  readonly prefix: string;
  readonly owner: string;

  constructor(prefix: string, owner: string) {
    this.prefix = prefix;
    this.owner = owner;
  }

  /** The name and tags a launch stores. */
  encode(owner: string, labels: Labels | undefined, launchKey: string): StoredIdentity {
    const { [LAUNCH_KEY_LABEL]: _key, ...tags } = ownerLabels(owner, labels, launchKey);
    return { name: this.nameFor(launchKey), tags };
  }

  /** Labels of a stored sandbox (reserved ones included); `undefined` when its name is outside the prefix. */
  decode(stored: StoredIdentity): Labels | undefined {
    if (!this.isInside(stored.name)) return undefined;
    const { [LAUNCH_KEY_LABEL]: _ignored, ...tags } = stored.tags ?? {};
    return { ...tags, [LAUNCH_KEY_LABEL]: stored.name.slice(this.prefix.length) };
  }

  /** The sandbox name of a launch key. */
  nameFor(launchKey: string): string {
    return `${this.prefix}${launchKey}`;
  }

  /** True when `name` lies inside the prefix (the name check alone: see {@link owns}). */
  isInside(name: string): boolean {
    return name.startsWith(this.prefix) && name.length > this.prefix.length;
  }

  /** True when a stored sandbox is ours: its name inside the prefix, and our `sandport.owner` tag. */
  owns(stored: StoredIdentity): boolean {
    const labels = this.decode(stored);
    return labels !== undefined && isOwnedBy(labels, this.owner);
  }
}
