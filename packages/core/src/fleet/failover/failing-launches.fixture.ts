// A thin test double over a real runtime: its launches fail as scripted, one fault per launch, and
// every other call (and every launch once the script is spent) goes to the real runtime untouched.
// It exists only to inject the launch failures a real provider gives under load or an outage.

import { BackgroundTasks } from "../../adapter/background-tasks.js";
import { reclaimAbandonedLaunch } from "../../adapter/reclaim-launch.js";
import { toSandportError } from "../../errors/factories.js";
import { SandportError } from "../../errors/sandport-error.js";
import type { LaunchSpec } from "../../port/launch-spec.js";
import type { OpOptions } from "../../port/op-options.js";
import { LAUNCH_KEY_LABEL } from "../../port/reserved-labels.js";
import type { SandboxHandle } from "../../port/sandbox-handle.js";
import type { SandboxRuntime } from "../../port/sandbox-runtime.js";
import type { FailoverCode } from "./failover-policy.js";

/**
 * How one launch fails:
 * - `refused`: the provider refused it (a 429, an outage page): nothing was created;
 * - `unsent`: the request never left this process (`details.sent: false`);
 * - `lost`: the provider created the sandbox (on the real runtime, with the launch's key) and the
 *   answer was lost: the outcome is unknown and a real sandbox exists until reconciled;
 * - `unanswered`: sent, unanswered, and nothing was created: the outcome is unknown until searched;
 * - `reclaimed`: the caller's deadline passed while the create was in flight; like a remote adapter,
 *   the double then destroys what the create makes in the background (`reclaimAbandonedLaunch`);
 * - `unreclaimable`: as `reclaimed`, but that background destroy is refused (`FOREIGN_SANDBOX`, never
 *   repeated), so the real sandbox stays: the test destroys it.
 */
export interface LaunchFault {
  readonly code: FailoverCode;
  readonly how: "refused" | "unsent" | "lost" | "unanswered" | "reclaimed" | "unreclaimable";
}

/** A runtime double and what its launches did. */
export interface FailingLaunches<H extends SandboxHandle> {
  readonly runtime: SandboxRuntime<H>;
  /** Launch calls received, in order, with their launch keys. */
  readonly launches: (string | undefined)[];
  /** Ids of the real sandboxes a `lost`, `reclaimed` or `unreclaimable` fault created. */
  readonly lostSandboxes: string[];
  /** Where the background cleanups of `reclaimed` faults run. */
  readonly background: BackgroundTasks;
}

/** Wraps `inner` so that its next launches fail with `faults`, in order. */
export function failingLaunches<H extends SandboxHandle>(
  inner: SandboxRuntime<H>,
  faults: readonly LaunchFault[],
): FailingLaunches<H> {
  const script = [...faults];
  const launches: (string | undefined)[] = [];
  const lostSandboxes: string[] = [];
  const background = new BackgroundTasks((error) => toSandportError(error, inner.provider));
  const launch = async (spec: LaunchSpec, op?: OpOptions): Promise<H> => {
    launches.push(spec.launchKey);
    const fault = script.shift();
    if (!fault) return inner.launch(spec, op);
    if (fault.how === "lost") lostSandboxes.push((await inner.launch(spec, op)).id);
    if (fault.how === "reclaimed" || fault.how === "unreclaimable") {
      const error = new SandportError({
        code: fault.code,
        provider: inner.provider,
        retryable: true,
        message: `injected launch failure (${fault.how})`,
      });
      const creation = inner.launch(spec);
      creation.then((handle) => lostSandboxes.push(handle.id)).catch(() => {});
      reclaimAbandonedLaunch({
        creation,
        idOf: (handle) => handle.id,
        launchKey: spec.launchKey as string,
        error,
        created: false,
        destroy: async (sandboxId) => {
          if (fault.how === "unreclaimable") {
            throw new SandportError({ code: "FOREIGN_SANDBOX", provider: inner.provider, message: "injected refusal" });
          }
          const handle = await inner.getById?.(sandboxId);
          if (handle) await inner.destroy(handle);
        },
        findByLaunchKey: async (launchKey) =>
          ((await inner.findByLabels?.({ [LAUNCH_KEY_LABEL]: launchKey })) ?? []).map((handle) => handle.id),
        outcomeUnknown: () => true,
        condemned: new Set(),
        background,
        cleanupMs: 10_000,
      });
      throw error;
    }
    throw new SandportError({
      code: fault.code,
      provider: inner.provider,
      retryable: true,
      ...(fault.code === "RATE_LIMITED" ? { retryAfterMs: 1 } : {}),
      message: `injected launch failure (${fault.how})`,
      details: fault.how === "unsent" ? { sent: false } : {},
    });
  };
  const runtime = new Proxy(inner, {
    get(target, key) {
      if (key === "launch") return launch;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { runtime, launches, lostSandboxes, background };
}
