import type { DeclaredCapabilities } from "../capabilities/declared-capabilities.js";

/** The cells every remote adapter declares alike; see {@link remoteCapabilities}. */
const REMOTE_CELLS = {
  warmLease: "unknown",
  verifiedCleanup: true,
} as const satisfies Partial<DeclaredCapabilities>;

/** What a remote adapter declares of its own: every cell but the ones {@link remoteCapabilities} fills in. */
export type RemoteDeclaration = Omit<DeclaredCapabilities, keyof typeof REMOTE_CELLS>;

/**
 * A remote adapter's declaration, frozen (its modes and absences too), with
 * the cells every remote adapter shares filled in:
 *
 * - `warmLease: "unknown"`: an idle sandbox can be found by labels and
 *   reused, but the provider may end it in between (a lifetime, an idle
 *   timeout); no live canary has shown otherwise.
 * - `verifiedCleanup: true`: `destroy` is `destroyVerified`, which resolves
 *   only once the provider reports the sandbox gone, and rejects
 *   `DESTROY_UNVERIFIED` otherwise.
 *
 * `pty` is structural (`openTerminal`): an adapter without it is `not-exposed`
 * unless it declares `absent: { pty: "unsupported" }`.
 */
export function remoteCapabilities(own: RemoteDeclaration): DeclaredCapabilities {
  return Object.freeze({
    ...REMOTE_CELLS,
    ...own,
    modes: Object.freeze({ ...own.modes }),
    ...(own.absent === undefined ? {} : { absent: Object.freeze({ ...own.absent }) }),
  });
}
