import { RecentMap } from "./recent-map.js";

/**
 * What a runtime knows about sandbox ids without asking the provider: which
 * carry its ownership marker (verified, or launched here), and which no
 * command has touched since this runtime launched them. In such a pristine
 * sandbox only the runtime's own file writes have run, and those never make
 * symlinks, so a file API that follows symlinks needs no guard there.
 */
export class KnownSandboxes {
  // Bounded (see `RecentMap`): a sandbox forgotten here is looked up again, and guarded as any other.
  readonly #owned = new RecentMap<string, true>();
  readonly #pristine = new RecentMap<string, true>();

  /** Records that `sandboxId` carries this runtime's ownership marker. */
  markOwned(sandboxId: string): void {
    this.#owned.set(sandboxId, true);
  }

  /** True when this runtime launched or verified `sandboxId`. */
  isOwned(sandboxId: string): boolean {
    return this.#owned.has(sandboxId);
  }

  /** Records that `sandboxId` was just launched here (and is ours): only this runtime's writes have touched it. */
  markPristine(sandboxId: string): void {
    this.#owned.set(sandboxId, true);
    this.#pristine.set(sandboxId, true);
  }

  /** Records that a command is about to run in `sandboxId`: it may make symlinks from now on. */
  markCommandRun(sandboxId: string): void {
    this.#pristine.delete(sandboxId);
  }

  /** True while no command has run in a sandbox this runtime launched. */
  isPristine(sandboxId: string): boolean {
    return this.#pristine.has(sandboxId);
  }

  /** Forgets a sandbox (destroyed, replaced), or only that it is pristine (`keepOwnership`: stopped, say). */
  forget(sandboxId: string, options: { readonly keepOwnership?: boolean } = {}): void {
    this.#pristine.delete(sandboxId);
    if (!options.keepOwnership) this.#owned.delete(sandboxId);
  }
}
