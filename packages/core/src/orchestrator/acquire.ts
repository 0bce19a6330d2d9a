import { randomUUID } from "node:crypto";
import { launchReclaimOf } from "../adapter/reclaim-launch.js";
import { toSandportError, unsupported } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import type { RuntimeRef } from "../fleet/failover/runtime-ref.js";
import type { LaunchSpec } from "../port/launch-spec.js";
import { LAUNCH_KEY_LABEL } from "../port/reserved-labels.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { sleep } from "../timing/abort.js";
import { DEFAULT_RETRY_POLICY } from "../timing/retry.js";
import type { PendingReclaim } from "./launch-reclaims.js";
import type { OrchestratorOptions, OrchestratorTimeouts } from "./options.js";
import { type CallContext, safeCall } from "./safe-call.js";
import { destroySandbox } from "./teardown.js";
import { type AcquireSpec, isReuseSpec } from "./workload.js";

/** Everything acquisition needs from the orchestrator. */
export interface AcquireContext<H extends SandboxHandle> extends CallContext {
  readonly runtime: SandboxRuntime<H>;
  readonly timeouts: OrchestratorTimeouts;
  readonly options: OrchestratorOptions<H>;
  /** Failed launches whose cleanup the runtime runs in the background; waited for before the workload returns. */
  readonly reclaims: PendingReclaim[];
  /** Which of the orchestrator's runtimes `runtime` is, for events. */
  readonly placement: RuntimeRef;
  /**
   * Codes after which a launch moves to another runtime instead of trying this
   * one again (unset when none is left to move to): such a failure ends this
   * runtime's attempts at once, once what it may have made is reconciled.
   */
  readonly moveOn?: ReadonlySet<string>;
}

/**
 * What a launch that failed left behind, when acquisition knows: `nothing`
 * (refused, never sent, or reconciled with nothing kept) or a cleanup the
 * runtime runs in the background (`reclaiming`). A failure without one may
 * have left a sandbox (a failed search, an abort): the caller must not move on.
 */
export type LaunchRemains =
  | { readonly kind: "nothing" }
  | { readonly kind: "reclaiming"; readonly reclaim: PendingReclaim };

const remainsOf = new WeakMap<object, LaunchRemains>();

/** What the failed launch that threw `error` left behind; see {@link LaunchRemains}. */
export function launchRemains(error: unknown): LaunchRemains | undefined {
  return typeof error === "object" && error !== null ? remainsOf.get(error) : undefined;
}

function leaving<E extends object>(error: E, remains: LaunchRemains): E {
  remainsOf.set(error, remains);
  return error;
}

/** A sandbox ready for use, and whether it already existed. */
export interface Acquired<H extends SandboxHandle> {
  readonly handle: H;
  readonly reused: boolean;
}

/** Codes after which a launch may or may not have created a sandbox. */
const OUTCOME_UNKNOWN = new Set(["DEADLINE_EXCEEDED", "PROVIDER_UNAVAILABLE", "UNEXPECTED", "ABORTED"]);

/** Reuses or launches a sandbox according to `spec`. */
export async function acquireSandbox<H extends SandboxHandle>(
  context: AcquireContext<H>,
  spec: AcquireSpec,
  signal: AbortSignal | undefined,
): Promise<Acquired<H>> {
  const started = performance.now();
  const acquired = isReuseSpec(spec) ? await reuse(context, spec.reuse, signal) : await launch(context, spec, signal);
  context.emit({
    type: "launched",
    sandboxId: acquired.handle.id,
    reused: acquired.reused,
    durationMs: performance.now() - started,
    runtime: context.placement,
  });
  return acquired;
}

async function reuse<H extends SandboxHandle>(
  context: AcquireContext<H>,
  target: { readonly id: string } | { readonly labels: Readonly<Record<string, string>> },
  signal: AbortSignal | undefined,
): Promise<Acquired<H>> {
  const { runtime, timeouts } = context;
  const op = { signal, timeoutMs: timeouts.lookupMs };
  if ("id" in target) {
    const getById = runtime.getById?.bind(runtime);
    if (!getById) throw unsupported(runtime.provider, "reuse by id", "the runtime has no getById");
    const handle = await safeCall(context, "getById", signal, () => getById(target.id, op));
    if (!handle) throw notFound(runtime.provider, `no sandbox ${target.id} to reuse`);
    return { handle, reused: true };
  }
  const findByLabels = runtime.findByLabels?.bind(runtime);
  if (!findByLabels) throw unsupported(runtime.provider, "reuse by labels", "the runtime has no findByLabels");
  const [handle] = await safeCall(context, "findByLabels", signal, () => findByLabels(target.labels, op));
  if (!handle) throw notFound(runtime.provider, `no sandbox with labels ${JSON.stringify(target.labels)} to reuse`);
  return { handle, reused: true };
}

async function launch<H extends SandboxHandle>(
  context: AcquireContext<H>,
  spec: LaunchSpec,
  signal: AbortSignal | undefined,
): Promise<Acquired<H>> {
  const attempts = context.options.launchAttempts ?? 2;
  for (let attempt = 1; ; attempt++) {
    const launchKey = randomUUID();
    const sent = { ...spec, launchKey };
    try {
      const handle = await context.runtime.launch(sent, { signal, timeoutMs: context.timeouts.launchMs });
      return { handle, reused: false };
    } catch (raw) {
      const error = toSandportError(raw, context.runtime.provider);
      // The runtime cleans up after this launch in the background: the workload waits for that before it returns.
      const reclaim = launchReclaimOf(error);
      const pending = reclaim ? { launchKey, provider: context.runtime.provider, report: reclaim } : undefined;
      if (pending) context.reclaims.push(pending);
      const remains: LaunchRemains = pending ? { kind: "reclaiming", reclaim: pending } : { kind: "nothing" };
      // A failure the caller moves to another runtime on ends this runtime's attempts.
      const more = attempt < attempts && !signal?.aborted && !context.moveOn?.has(error.code);
      if (error.code === "RATE_LIMITED" && more) {
        // A 429 means the create was refused, so repeating it is safe.
        await sleep(error.retryAfterMs ?? DEFAULT_RETRY_POLICY.initialDelayMs * 2 ** attempt, signal);
        continue;
      }
      if (!OUTCOME_UNKNOWN.has(error.code)) throw leaving(error, remains);
      // The runtime knows nothing left this process (an unreachable endpoint): nothing to search for.
      if (error.details.sent === false) {
        if (!more || !error.retryable) throw leaving(error, remains);
        continue;
      }
      if (reclaim) {
        // The runtime searches for (and destroys) what this launch may have made until its listing can be
        // trusted: adopting it here would race that cleanup. The workload waits for it before it returns.
        if (!more || !error.retryable) throw leaving(error, remains);
        continue;
      }
      const adopted = await reconcile(context, sent, launchKey, error, signal);
      if (adopted) return { handle: adopted, reused: false };
      // Reconciled: whatever the launch made is destroyed.
      if (!more || !error.retryable) throw leaving(error, { kind: "nothing" });
    }
  }
}

/**
 * After a launch with an unknown outcome: find what it may have created, then
 * adopt one (when so configured and the caller did not abort) and destroy the rest.
 * Runs on its own timeouts, not the caller's signal, which may already have fired.
 */
async function reconcile<H extends SandboxHandle>(
  context: AcquireContext<H>,
  spec: LaunchSpec,
  launchKey: string,
  error: SandportError,
  callerSignal: AbortSignal | undefined,
): Promise<H | undefined> {
  const { runtime, timeouts, options } = context;
  const findByLabels = runtime.findByLabels?.bind(runtime);
  const lookupSignal = AbortSignal.timeout(timeouts.lookupMs);
  const search =
    options.reconcileLaunch ??
    (findByLabels
      ? () => findByLabels({ [LAUNCH_KEY_LABEL]: launchKey }, { signal: lookupSignal, timeoutMs: timeouts.lookupMs })
      : undefined);
  if (!search) {
    throw new SandportError({
      code: error.code,
      provider: runtime.provider,
      message: `launch outcome unknown (${error.message}) and ${runtime.provider} cannot search by launch key: a sandbox may have leaked`,
      cause: error,
      details: { launchKey, possibleLeak: true },
    });
  }
  let found: readonly H[];
  try {
    found = await safeCall(context, "reconcileLaunch", lookupSignal, () =>
      Promise.resolve(search({ launchKey, spec, error, signal: lookupSignal })),
    );
  } catch (lookupError) {
    throw new SandportError({
      code: error.code,
      provider: runtime.provider,
      message: `launch outcome unknown (${error.message}) and the search for its sandbox failed: a sandbox may have leaked`,
      cause: error,
      details: { launchKey, possibleLeak: true, lookupError: toSandportError(lookupError).message },
    });
  }
  const adopt = options.onUnknownLaunch === "adopt" && !callerSignal?.aborted ? found[0] : undefined;
  const destroyed: string[] = [];
  for (const handle of found) {
    if (handle === adopt) continue;
    const outcome = await destroySandbox(runtime, handle, context, timeouts);
    if (!outcome.ok) {
      throw new SandportError({
        code: outcome.error.code,
        provider: runtime.provider,
        message: `could not destroy sandbox ${handle.id} left by a launch with unknown outcome: ${outcome.error.message}`,
        cause: outcome.error,
        details: { launchKey, possibleLeak: true, sandboxId: handle.id },
      });
    }
    destroyed.push(handle.id);
  }
  context.emit({ type: "launch-reconciled", launchKey, adopted: adopt?.id, destroyed });
  return adopt;
}

function notFound(provider: string, message: string): SandportError {
  return new SandportError({ code: "NOT_FOUND", provider, message });
}
