import type { Labels } from "../port/labels.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import { keyList } from "../validation/known-keys.js";

/**
 * Where a lease stands: `leased` until `release` (then `released`), or
 * `revoked` when the pool closed while it was out (its sandbox destroyed).
 */
export type LeaseState = "leased" | "released" | "revoked";

/** A sandbox lent by a `SandboxPool`, to give back with `release`. */
export interface SandboxLease<H extends SandboxHandle = SandboxHandle> {
  /** The sandbox: use it with the pool's runtime. */
  readonly handle: H;
  /** The pool's id (also the sandbox's `sandport-pool` label). */
  readonly poolId: string;
  /**
   * The sandbox's labels as launched, the pool id among them. The lease's
   * state is not one of them: the port fixes labels at launch, so it is here
   * in `state`, in this process only.
   */
  readonly labels: Labels;
  /** See {@link LeaseState}. */
  readonly state: LeaseState;
}

/** Options of `SandboxPool.lease`. */
export interface LeaseOptions {
  /** Aborting stops waiting with `ABORTED`; nothing is leased. */
  readonly signal?: AbortSignal;
  /** How long to wait for a sandbox (`DEADLINE_EXCEEDED` after). Default: the pool's `leaseTimeoutMs`. */
  readonly timeoutMs?: number;
}

/** Every key of {@link LeaseOptions}. */
export const LEASE_OPTION_KEYS = keyList<LeaseOptions>({ signal: true, timeoutMs: true });

/** Options of `SandboxPool.release`. */
export interface ReleaseOptions {
  /**
   * `reset` (default): the sandbox is made ready for another lease, as the
   * pool's `reset` option says (replaced, or its workspace cleaned);
   * `destroy`: it is destroyed, and the pool launches another if it is below `minIdle`.
   */
  readonly mode?: "reset" | "destroy";
}

/** Every key of {@link ReleaseOptions}. */
export const RELEASE_OPTION_KEYS = keyList<ReleaseOptions>({ mode: true });

/** A lease and the handle by which its pool changes its state. */
export function createLease<H extends SandboxHandle>(
  handle: H,
  poolId: string,
): { readonly lease: SandboxLease<H>; readonly setState: (state: LeaseState) => void } {
  let state: LeaseState = "leased";
  const lease: SandboxLease<H> = Object.freeze({
    handle,
    poolId,
    labels: handle.labels,
    get state() {
      return state;
    },
  });
  return {
    lease,
    setState: (next) => {
      state = next;
    },
  };
}
