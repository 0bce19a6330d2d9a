import type { OptionalMethod } from "../capabilities/structural-methods.js";
import { SandportError } from "../errors/sandport-error.js";
import { ContainedListener } from "../orchestrator/listener-errors.js";
import { currentRunId } from "../orchestrator/run-context.js";
import type { ForkOptions } from "../port/fork-options.js";
import type { LaunchSpec } from "../port/launch-spec.js";
import type { OpOptions } from "../port/op-options.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { validateLaunchSpec } from "../validation/requests.js";
import { SYSTEM_CLOCK } from "./fleet-clock.js";
import { LaunchSlots } from "./launch-slots.js";
import { type LimiterEvent, type LimiterEventBody, type LimiterOptions, resolveLimits } from "./limiter-options.js";

/**
 * How each optional port member is forwarded. `safe`: a repeat cannot do
 * anything twice (a read, a lookup, an idempotent delete or an idempotent
 * start), so a `RATE_LIMITED` answer is waited out and the call repeated;
 * `once`: never repeated (it runs or writes something); `launch`: queued for
 * a slot, and repeated only with a launch key; `fork`: queued for a slot like
 * a launch, never repeated. A `Record` over every optional
 * member, so a member added to the port cannot be left unforwarded.
 */
const OPTIONAL_MEMBERS: Readonly<
  Record<OptionalMethod, { readonly kind: "safe" | "once" | "stream" | "launch" | "fork"; readonly opAt: number }>
> = {
  execStream: { kind: "stream", opAt: 2 },
  // Like execStream: an iterable returned at once, whose chunks cannot be asked for again.
  readFileStream: { kind: "stream", opAt: 2 },
  // Idempotent on its sessionId: a repeat returns the command already started.
  startCommand: { kind: "safe", opAt: 2 },
  commandStatus: { kind: "safe", opAt: 2 },
  commandLogs: { kind: "safe", opAt: 2 },
  getById: { kind: "safe", opAt: 1 },
  findByLabels: { kind: "safe", opAt: 1 },
  launchDetached: { kind: "launch", opAt: 1 },
  stop: { kind: "once", opAt: 1 },
  start: { kind: "once", opAt: 1 },
  listDir: { kind: "safe", opAt: 2 },
  stat: { kind: "safe", opAt: 2 },
  mkdir: { kind: "once", opAt: 2 },
  remove: { kind: "once", opAt: 2 },
  spawn: { kind: "once", opAt: 2 },
  portEndpoint: { kind: "safe", opAt: 2 },
  openTerminal: { kind: "once", opAt: 2 },
  snapshot: { kind: "once", opAt: 1 },
  listSnapshots: { kind: "safe", opAt: 1 },
  // Deleting an absent snapshot resolves.
  deleteSnapshot: { kind: "safe", opAt: 1 },
  // A new sandbox: it takes a launch slot and counts as live, and is never repeated (it has no launch key).
  fork: { kind: "fork", opAt: 1 },
};

/** A runtime behind {@link limitRuntime}: the same port, plus what the limiter holds. */
export type LimitedRuntime<H extends SandboxHandle = SandboxHandle> = SandboxRuntime<H> & {
  /** The runtime the limiter forwards to (for its members outside the port, such as `settle()`). */
  readonly inner: SandboxRuntime<H>;
  /** Launches in flight, sandboxes counted live, launches queued, now. */
  readonly load: () => { readonly inFlight: number; readonly live: number; readonly queued: number };
  /** Errors the `onEvent` listener threw, contained. */
  readonly limiterErrors: readonly SandportError[];
};

/**
 * Wraps `runtime` in a limiter that implements the same port, for one
 * runtime shared by many callers:
 *
 * - at most `maxLaunchesInFlight` launches run at once and at most `maxLive`
 *   sandboxes launched through it are alive; further launches wait in a FIFO
 *   queue, each at most `queueDeadlineMs`, after which it is refused with
 *   `DEADLINE_EXCEEDED` and nothing is launched;
 * - a `RATE_LIMITED` answer with `retryAfterMs` is waited out, exactly that
 *   long, and the call repeated, only where a repeat is safe: reads, lookups,
 *   idempotent deletes and starts, and a launch that carries a `launchKey`
 *   (by which the runtime finds what an earlier attempt made). `exec`,
 *   `execStream`, `readFileStream`, `writeFiles`, `mkdir`, `remove`, `spawn`, terminals,
 *   snapshots and `stop`/`start` are never repeated: their error goes to the
 *   caller. A wait that would end past the call's `op.timeoutMs` is not begun.
 *
 * Every optional member the runtime has is forwarded, and none it lacks is
 * added: `resolveCapabilities` says the same of both. A sandbox counts as live
 * from its launch until a `destroy` through the limiter resolves; one that
 * ended some other way (another process destroyed it, its lifetime ran out)
 * is freed by destroying it through the limiter, which resolves for an absent
 * sandbox.
 */
export function limitRuntime<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
  options: LimiterOptions = {},
): LimitedRuntime<H> {
  const limits = resolveLimits(options);
  const clock = options.clock ?? SYSTEM_CLOCK;
  const listener = new ContainedListener<LimiterEvent>(options.onEvent, runtime.provider);
  // Emitted in the async context of the call the event is about, so the run that made it is current.
  const emit = (event: LimiterEventBody): void => {
    const runId = currentRunId();
    listener.emit(runId === undefined ? event : { ...event, runId });
  };
  const slots = new LaunchSlots(limits, clock, emit, runtime.provider);
  const live = new Set<string>();
  const call = (method: string, args: unknown[]): Promise<unknown> =>
    (runtime as unknown as Record<string, (...given: unknown[]) => Promise<unknown>>)[method]!.apply(runtime, args);

  /** Runs `attempt` and, where `repeatable`, waits out and repeats on `RATE_LIMITED` with `retryAfterMs`. */
  async function withRateLimits<T>(
    operation: string,
    repeatable: boolean,
    op: OpOptions | undefined,
    attempt: (op: OpOptions | undefined) => Promise<T>,
  ): Promise<T> {
    const started = clock.now();
    for (let tries = 1; ; tries++) {
      const left = op?.timeoutMs === undefined ? undefined : op.timeoutMs - (clock.now() - started);
      try {
        return await attempt(left === undefined ? op : { ...op, timeoutMs: Math.max(1, Math.floor(left)) });
      } catch (error) {
        if (!SandportError.hasCode(error, "RATE_LIMITED")) throw error;
        const waitMs = error.retryAfterMs;
        const remaining = op?.timeoutMs === undefined ? Infinity : op.timeoutMs - (clock.now() - started);
        const retrying = repeatable && waitMs !== undefined && tries <= limits.rateLimitRetries && waitMs < remaining;
        emit({ type: "rate-limited", operation, attempt: tries, retryAfterMs: waitMs, retrying });
        if (!retrying) throw error;
        await clock.sleep(waitMs as number, op?.signal);
      }
    }
  }

  /** A launch: a slot first, then the call, repeated on a rate limit only with a launch key. */
  async function launchThrough(operation: "launch" | "launchDetached", spec: LaunchSpec, op?: OpOptions) {
    // A malformed spec is refused now, not after waiting its turn for a slot it could never use.
    validateLaunchSpec(spec, runtime.provider);
    const deadlineMs = Math.min(limits.queueDeadlineMs, op?.timeoutMs ?? Infinity);
    const waitedMs = await slots.acquire(operation, deadlineMs, op?.signal);
    const rest =
      op?.timeoutMs === undefined ? op : { ...op, timeoutMs: Math.max(1, Math.floor(op.timeoutMs - waitedMs)) };
    let handle: H | undefined;
    try {
      handle = await withRateLimits(
        operation,
        typeof spec?.launchKey === "string",
        rest,
        (attemptOp) => call(operation, [spec, attemptOp]) as Promise<H>,
      );
      live.add(handle.id);
      return handle;
    } finally {
      slots.finish(handle !== undefined);
    }
  }

  /** A fork: a new sandbox, so a slot first as for a launch; never repeated, for it carries no launch key. */
  async function forkThrough(source: H, options?: ForkOptions) {
    const deadlineMs = Math.min(limits.queueDeadlineMs, options?.timeoutMs ?? Infinity);
    const waitedMs = await slots.acquire("fork", deadlineMs, options?.signal);
    const rest =
      options?.timeoutMs === undefined
        ? options
        : { ...options, timeoutMs: Math.max(1, Math.floor(options.timeoutMs - waitedMs)) };
    let handle: H | undefined;
    try {
      handle = (await withRateLimits("fork", false, undefined, () => call("fork", [source, rest]))) as H;
      live.add(handle.id);
      return handle;
    } finally {
      slots.finish(handle !== undefined);
    }
  }

  const limited: Record<string, unknown> = {
    specificationVersion: runtime.specificationVersion,
    provider: runtime.provider,
    workspaceRoot: runtime.workspaceRoot,
    capabilities: runtime.capabilities,
    inner: runtime,
    load: () => slots.load,
    limiterErrors: listener.errors,
    launch: (spec: LaunchSpec, op?: OpOptions) => launchThrough("launch", spec, op),
    exec: (...args: unknown[]) => withRateLimits("exec", false, undefined, () => call("exec", args)),
    writeFiles: (...args: unknown[]) => withRateLimits("writeFiles", false, undefined, () => call("writeFiles", args)),
    readFile: (handle: H, path: string, op?: OpOptions) =>
      withRateLimits("readFile", true, op, (attemptOp) => call("readFile", [handle, path, attemptOp])),
    destroy: async (handle: H, op?: OpOptions) => {
      // Destroying an absent sandbox resolves: a repeat is safe.
      await withRateLimits("destroy", true, op, (attemptOp) => call("destroy", [handle, attemptOp]));
      if (live.delete(handle.id)) slots.destroyed();
    },
  };
  for (const [method, { kind, opAt }] of Object.entries(OPTIONAL_MEMBERS)) {
    if (typeof (runtime as unknown as Record<string, unknown>)[method] !== "function") continue;
    if (kind === "stream") {
      // An iterable is returned at once and never repeated: forwarded as it is.
      limited[method] = (...args: unknown[]) =>
        (runtime as unknown as Record<string, (...given: unknown[]) => unknown>)[method]!.apply(runtime, args);
    } else if (kind === "launch") {
      limited[method] = (spec: LaunchSpec, op?: OpOptions) => launchThrough("launchDetached", spec, op);
    } else if (kind === "fork") {
      limited[method] = (handle: H, options?: ForkOptions) => forkThrough(handle, options);
    } else if (kind === "once") {
      limited[method] = (...args: unknown[]) => withRateLimits(method, false, undefined, () => call(method, args));
    } else {
      limited[method] = (...args: unknown[]) => {
        const op = args[opAt] as OpOptions | undefined;
        return withRateLimits(method, true, op, (attemptOp) => {
          const sent = [...args];
          if (op !== undefined) sent[opAt] = attemptOp;
          return call(method, sent);
        });
      };
    }
  }
  return Object.freeze(limited) as unknown as LimitedRuntime<H>;
}
