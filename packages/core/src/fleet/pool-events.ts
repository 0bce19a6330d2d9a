import type { SandportError } from "../errors/sandport-error.js";
import type { SandboxUsage } from "./usage/sandbox-usage.js";

/** Why a pool destroyed an idle or released sandbox and launched another in its place. */
export type ReplaceReason =
  /** It stayed idle longer than `maxIdleMs`. */
  | "expired"
  /** Its health check failed (or could not run). */
  | "unhealthy"
  /** A lease was released with `reset` and the pool resets by replacement. */
  | "reset"
  /** Cleaning its workspace on release failed, or left it unlike a fresh one. */
  | "reset-failed";

/** Something a pool could not do, kept for {@link PoolCloseReport} and never dropped. */
export interface PoolFailure {
  /**
   * `destroy`: a sandbox of the pool could not be destroyed (it may still run);
   * `launch`: a launch whose outcome was unknown left something the pool could
   * not find or destroy; `reclaim`: a sandbox left by an earlier pool with the
   * same id could not be destroyed.
   */
  readonly operation: "destroy" | "launch" | "reclaim";
  /** The sandbox concerned, when known. */
  readonly sandboxId?: string;
  /** The launch concerned, for `launch`. */
  readonly launchKey?: string;
  /** What went wrong. */
  readonly error: SandportError;
}

/**
 * What a pool reports, in order: launches, leases, releases, resets,
 * replacements, reclaimed orphans and every failure. A listener that throws
 * derails nothing (its errors are in `PoolCloseReport.listenerErrors`).
 *
 * A pool's events belong to no run, so none carries a run id: the pool
 * launches, checks, cleans and destroys for itself (refilling to `minIdle`,
 * replacing an expired or unhealthy sandbox, reclaiming what an earlier pool
 * left), and a lease is the caller's, whatever it runs. A workload run on a
 * lease through the orchestrator (`launch: { reuse }`) reports its own events
 * under its own `runId`; tie them to the pool's by the sandbox id.
 */
export type PoolEvent =
  | { readonly type: "launched"; readonly sandboxId: string; readonly durationMs: number }
  | { readonly type: "launch-failed"; readonly launchKey: string; readonly error: SandportError }
  | {
      /** A lease was handed out; `waitedMs` from `lease()` to here, `idle` sandboxes left ready. */
      readonly type: "leased";
      readonly sandboxId: string;
      readonly waitedMs: number;
      readonly idle: number;
    }
  | { readonly type: "released"; readonly sandboxId: string; readonly mode: "reset" | "destroy" }
  | {
      /** A released sandbox's workspace was cleaned and it is idle again. */
      readonly type: "reset";
      readonly sandboxId: string;
      readonly durationMs: number;
    }
  | {
      /** A sandbox was destroyed to be replaced (the replacement's `launched` follows). */
      readonly type: "replaced";
      readonly sandboxId: string;
      readonly reason: ReplaceReason;
      readonly error?: SandportError;
    }
  | { readonly type: "destroyed"; readonly sandboxId: string; readonly reason: "released" | "closed" }
  | {
      /** A sandbox an earlier pool with the same id left (its process ended without `close`) was destroyed. */
      readonly type: "reclaimed";
      readonly sandboxId: string;
    }
  | {
      /**
       * A sandbox stopped being the pool's (destroyed, or its destroy failed):
       * its life from launch to here, idle and leased alike, with an estimate
       * under the pool's `prices`. Commands a lease holder ran are metered by
       * whoever ran them (the orchestrator, for a workload that reuses the lease).
       */
      readonly type: "usage";
      readonly usage: SandboxUsage;
    }
  | { readonly type: "failure"; readonly failure: PoolFailure }
  | { readonly type: "closed"; readonly destroyed: number; readonly failures: number };

/** What `SandboxPool.close` did, and what it could not do. */
export interface PoolCloseReport {
  /** True when every sandbox the pool owned is verified gone and nothing failed. */
  readonly ok: boolean;
  /** Sandboxes destroyed once `close` began: released while it waited (`drainMs`), idle, and revoked. */
  readonly destroyed: readonly string[];
  /** Leases still out when the pool closed; their sandboxes were destroyed (or are in `failures`). */
  readonly revokedLeases: readonly string[];
  /** Everything the pool could not do over its life, in order, `close`'s own failures last. */
  readonly failures: readonly PoolFailure[];
  /** Errors the `onEvent` listener threw, contained. */
  readonly listenerErrors: readonly SandportError[];
}
