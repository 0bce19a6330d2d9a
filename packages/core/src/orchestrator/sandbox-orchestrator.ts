import { randomUUID } from "node:crypto";
import { invalidRequest, toSandportError } from "../errors/factories.js";
import type { SandportError } from "../errors/sandport-error.js";
import { validateRequires } from "../fleet/failover/capability-needs.js";
import { failoverCodes } from "../fleet/failover/failover-policy.js";
import {
  acquireWithFailover,
  type FailoverPlan,
  type Placement,
  type SharedAcquireContext,
} from "../fleet/failover/launch-failover.js";
import type { SandboxUsage } from "../fleet/usage/sandbox-usage.js";
import { UsageMeter } from "../fleet/usage/usage-meter.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { refuseUnknownShape } from "../validation/known-keys.js";
import type { ValidatedFile } from "../validation/requests.js";
import type { AcquireContext } from "./acquire.js";
import { settleReclaims } from "./launch-reclaims.js";
import { ContainedListener } from "./listener-errors.js";
import {
  DEFAULT_ORCHESTRATOR_TIMEOUTS,
  type OrchestratorOptions,
  type OrchestratorTimeouts,
  RUN_OPTION_KEYS,
  type RunOptions,
  SESSION_OPTION_KEYS,
  type SessionOptions,
} from "./options.js";
import { inRun } from "./run-context.js";
import { runStep } from "./run-step.js";
import { safeCall } from "./safe-call.js";
import { SandboxSession } from "./sandbox-session.js";
import { destroySandbox } from "./teardown.js";
import {
  checkOrchestratorOptions,
  TEARDOWN_POLICIES,
  validateAcquireSpec,
  validateWorkload,
} from "./validate-workload.js";
import { type AcquireSpec, isReuseSpec, type TeardownPolicy, type Workload } from "./workload.js";
import { WorkloadError, type WorkloadStage, withPossibleLeaks } from "./workload-error.js";
import type { StepRecord, TeardownReport, WorkloadResult } from "./workload-result.js";

/**
 * Drives workloads through any runtime: acquire a sandbox, write files, run
 * steps, collect files, tear down by policy. It knows no provider.
 *
 * Guarantees: the whole workload is validated before any provider call;
 * teardown runs whatever fails (abort included) and its failure is reported;
 * only safe calls are retried; a launch with an unknown outcome is reconciled.
 *
 * Given a list of runtimes (`new SandboxOrchestrator([primary, fallback])`),
 * a launch starts on the first and moves to the next that has every
 * capability the workload uses when it fails with one of the `failover`
 * codes before any sandbox exists (see `acquireWithFailover`); everything
 * after the launch goes to the runtime that launched the sandbox.
 */
export class SandboxOrchestrator<H extends SandboxHandle = SandboxHandle> {
  /** The first (or only) runtime: every workload's launch is tried there first. */
  readonly runtime: SandboxRuntime<H>;
  /** Every runtime, in the order a launch tries them; one entry for a single runtime. */
  readonly runtimes: readonly SandboxRuntime<H>[];
  readonly #options: OrchestratorOptions<H>;
  readonly #timeouts: OrchestratorTimeouts;
  readonly #placements: readonly Placement<H>[];
  readonly #failoverCodes: ReadonlySet<string>;

  /**
   * One runtime: every workload runs there. Refuses (`INVALID_REQUEST`)
   * options with an unknown key, a timeout that is not a duration, a
   * malformed failover policy or price table.
   */
  constructor(runtime: SandboxRuntime<H>, options?: OrchestratorOptions<H>);
  /**
   * Runtimes in the order a launch tries them (they may be of different
   * providers, so handles are typed `SandboxHandle` unless you say otherwise).
   * Refuses an empty list, and options as for one runtime.
   */
  constructor(runtimes: readonly SandboxRuntime[], options?: OrchestratorOptions<H>);
  constructor(runtime: SandboxRuntime<H> | readonly SandboxRuntime[], options: OrchestratorOptions<H> = {}) {
    // A list's handles are the caller's `H` only as far as it says so: each runtime keeps its own.
    const given: readonly unknown[] = Array.isArray(runtime) ? [...runtime] : [runtime];
    const runtimes = given as readonly SandboxRuntime<H>[];
    if (runtimes.length === 0) throw invalidRequest("SandboxOrchestrator needs at least one runtime");
    this.runtimes = Object.freeze(runtimes);
    this.runtime = runtimes[0] as SandboxRuntime<H>;
    checkOrchestratorOptions(options);
    this.#failoverCodes = failoverCodes(options.failover);
    this.#options = options;
    this.#timeouts = { ...DEFAULT_ORCHESTRATOR_TIMEOUTS, ...options.timeouts };
    this.#placements = runtimes.map((each, index) => ({ runtime: each, ref: { index, provider: each.provider } }));
  }

  /**
   * Runs a workload to the end. Resolves with the result, non-zero exits
   * included (`ok: false`). Every rejection is a {@link WorkloadError} with
   * the stage that failed: `validate` (code `INVALID_REQUEST`, before any
   * provider call) when the workload or these options are malformed (an
   * unknown key included), else after teardown, carrying everything done so
   * far, when anything else fails, including teardown itself.
   */
  async run(workload: Workload, options: RunOptions = {}): Promise<WorkloadResult<H>> {
    const runId = randomUUID();
    let plan: { readonly files: readonly ValidatedFile[] };
    try {
      refuseUnknownShape(options, RUN_OPTION_KEYS, "run options", this.runtime.provider);
      plan = validateWorkload(workload, this.runtime);
    } catch (error) {
      throw new WorkloadError(
        "validate",
        toSandportError(error, this.runtime.provider),
        refusedResult(workload, runId),
      );
    }
    // Every call the run makes is made in its name: a limiter under the runtime reports its run id.
    return inRun(runId, async () => {
      const { signal } = options;
      const listener = new ContainedListener(this.#options.onEvent, this.runtime.provider);
      const shared = this.#shared(listener, runId);
      const totalStarted = performance.now();
      const timings = { launchMs: 0, filesMs: 0, stepsMs: 0, collectMs: 0, teardownMs: 0, totalMs: 0 };
      const steps: StepRecord[] = [];
      const collected: Record<string, Uint8Array> = {};
      let handle: H | undefined;
      let reused = false;
      let placement: Placement<H> | undefined;
      let meter: UsageMeter | undefined;
      let stage: WorkloadStage = "launch";
      let failure: SandportError | undefined;
      const timed = async (phase: keyof typeof timings, work: () => Promise<void>) => {
        const started = performance.now();
        try {
          await work();
        } finally {
          timings[phase] += performance.now() - started;
        }
      };

      try {
        await timed("launchMs", async () => {
          ({ handle, reused, placement } = await acquireWithFailover(
            shared,
            this.#failoverPlan([], (runtime) => refusal(() => validateWorkload(workload, runtime))),
            workload.launch,
            signal,
          ));
        });
        const sandbox = handle as unknown as H;
        const { runtime } = placement as Placement<H>;
        const context = placed(shared, placement as Placement<H>);
        meter = this.#meter(sandbox, reused, placement as Placement<H>, workload.launch);
        const files = workload.files ?? [];
        if (files.length > 0) {
          stage = "files";
          await timed("filesMs", async () => {
            const started = performance.now();
            await safeCall(context, "writeFiles", signal, () =>
              runtime.writeFiles(sandbox, files, { signal, timeoutMs: this.#timeouts.fileMs }),
            );
            meter?.filesWritten(files);
            const bytes = plan.files.reduce((sum, file) => sum + file.content.byteLength, 0);
            const paths = plan.files.map((file) => file.path);
            context.emit({
              type: "files-written",
              sandboxId: sandbox.id,
              paths,
              bytes,
              durationMs: performance.now() - started,
            });
          });
        }
        stage = "step";
        await timed("stepsMs", async () => {
          for (const [index, step] of (workload.steps ?? []).entries()) {
            const record = await runStep(runtime, sandbox, step, index, context.emit, this.#timeouts, signal);
            meter?.exec(step.stdin, record.result, record.durationMs);
            steps.push(record);
            if (record.result.exitCode !== 0 && !step.continueOnFailure) break;
          }
        });
        stage = "collect";
        await timed("collectMs", async () => {
          for (const path of workload.collect ?? []) {
            const bytes = await safeCall(context, "readFile", signal, () =>
              runtime.readFile(sandbox, path, { signal, timeoutMs: this.#timeouts.fileMs }),
            );
            meter?.fileRead(bytes.byteLength);
            collected[path] = bytes;
            context.emit({ type: "collected", sandboxId: sandbox.id, path, bytes: bytes.byteLength });
          }
        });
      } catch (error) {
        failure = toSandportError(error, placement?.runtime.provider ?? this.runtime.provider);
      }

      const ok =
        failure === undefined &&
        steps.length === (workload.steps ?? []).length &&
        steps.every((step) => step.result.exitCode === 0);
      const policy = workload.teardown ?? "always";
      const acquired = handle as H | undefined;
      const teardown = placement ? await this.#teardown(acquired, policy, ok, placed(shared, placement)) : none(policy);
      timings.teardownMs = teardown.durationMs;
      const usage = meter && acquired ? this.#usage(meter, teardown.outcome) : undefined;
      const possibleLeaks = await this.#settleReclaims(shared, signal);
      // The run's last event: its usage, or, when no sandbox was acquired, why.
      if (usage && acquired) shared.emit({ type: "usage", sandboxId: acquired.id, usage });
      else if (!placement && failure) shared.emit({ type: "acquire-failed", error: failure });
      timings.totalMs = performance.now() - totalStarted;
      const result: WorkloadResult<H> = {
        runId,
        ok,
        sandboxId: acquired?.id,
        reused,
        runtime: placement?.ref,
        usage,
        handle: teardown.outcome === "kept" ? acquired : undefined,
        steps,
        collected,
        timings,
        teardown,
        possibleLeaks,
        listenerErrors: listener.errors,
      };
      if (failure) throw new WorkloadError(stage, failure, result);
      if (teardown.error) throw new WorkloadError("teardown", teardown.error, result);
      return result;
    });
  }

  /**
   * Acquires a sandbox and returns it as a disposable session:
   * `await using session = await orchestrator.session({ labels })`. Disposal
   * destroys it unless `teardown` is `keep`.
   */
  async session(spec: AcquireSpec, options: SessionOptions = {}): Promise<SandboxSession<H>> {
    refuseUnknownShape(options, SESSION_OPTION_KEYS, "session options", this.runtime.provider);
    validateAcquireSpec(spec, this.runtime);
    const requires = validateRequires(options.requires, "session options requires");
    const teardown = options.teardown ?? "always";
    if (teardown !== "always" && teardown !== "keep")
      throw invalidRequest('session teardown must be "always" or "keep"');
    const listener = new ContainedListener(this.#options.onEvent, this.runtime.provider);
    const runId = randomUUID();
    const shared = this.#shared(listener, runId);
    let acquired: Awaited<ReturnType<typeof acquireWithFailover<H>>>;
    try {
      const plan = this.#failoverPlan(requires, (runtime) => refusal(() => validateAcquireSpec(spec, runtime)));
      acquired = await inRun(runId, () => acquireWithFailover(shared, plan, spec, options.signal));
    } catch (error) {
      const failure = toSandportError(error, this.runtime.provider);
      const leaks = await this.#settleReclaims(shared, options.signal);
      shared.emit({ type: "acquire-failed", error: failure });
      throw withPossibleLeaks(failure, leaks);
    }
    const { handle, reused, placement } = acquired;
    return new SandboxSession(placement.runtime, handle, placed(shared, placement), this.#timeouts, {
      runId,
      destroysOnDispose: teardown === "always",
      listenerErrors: listener.errors,
      placement: placement.ref,
      meter: this.#meter(handle, reused, placement, spec),
      prices: this.#options.prices,
    });
  }

  async #teardown(
    handle: H | undefined,
    policy: TeardownPolicy,
    ok: boolean,
    context: AcquireContext<H>,
  ): Promise<TeardownReport> {
    if (!handle) return none(policy);
    if (policy === "keep" || (policy === "on-success" && !ok)) {
      context.emit({ type: "kept", sandboxId: handle.id });
      return { policy, outcome: "kept", durationMs: 0 };
    }
    const outcome = await destroySandbox(context.runtime, handle, context, this.#timeouts);
    return outcome.ok
      ? { policy, outcome: "destroyed", durationMs: outcome.durationMs }
      : { policy, outcome: "failed", error: outcome.error, durationMs: outcome.durationMs };
  }

  /**
   * Waits for the runtime's cleanup of this workload's failed launches (not
   * after an abort, which must answer promptly: what is unfinished then is
   * reported as it stands); each that ended cleanly is `launch-reconciled`.
   */
  #settleReclaims(context: SharedAcquireContext<H>, signal: AbortSignal | undefined) {
    const waitMs = signal?.aborted ? 0 : this.#timeouts.reclaimMs;
    return settleReclaims(context.reclaims, waitMs, (report) =>
      context.emit({
        type: "launch-reconciled",
        launchKey: report.launchKey,
        adopted: undefined,
        destroyed: report.destroyed,
      }),
    );
  }

  /** What every part of one run shares; each event it emits carries `runId`. */
  #shared(listener: ContainedListener, runId: string): SharedAcquireContext<H> {
    return {
      timeouts: this.#timeouts,
      options: this.#options,
      retryPolicy: this.#options.retry,
      emit: (event) => listener.emit({ ...event, runId }),
      reclaims: [],
    };
  }

  #failoverPlan(
    requires: FailoverPlan<H>["requires"],
    refuses: NonNullable<FailoverPlan<H>["refuses"]>,
  ): FailoverPlan<H> {
    return { placements: this.#placements, codes: this.#failoverCodes, requires, refuses };
  }

  /** Starts metering a sandbox just acquired. */
  #meter(handle: H, reused: boolean, placement: Placement<H>, spec: AcquireSpec): UsageMeter {
    return new UsageMeter({
      sandboxId: handle.id,
      runtime: placement.ref,
      reused,
      ...(handle.createdAt === undefined ? {} : { createdAt: handle.createdAt }),
      ...(isReuseSpec(spec) || spec.resources === undefined ? {} : { resources: spec.resources }),
    });
  }

  /** Ends a workload's metering by its teardown (the run emits the usage once nothing else of it is left to report). */
  #usage(meter: UsageMeter, outcome: TeardownReport["outcome"]): SandboxUsage {
    meter.end(outcome === "destroyed" ? "destroyed" : outcome === "kept" ? "kept" : "teardown-failed");
    return meter.report(this.#options.prices);
  }
}

/** What a workload refused before anything ran has to show: nothing acquired, nothing done. */
function refusedResult<H extends SandboxHandle>(workload: unknown, runId: string): WorkloadResult<H> {
  const given = (workload as { teardown?: unknown } | null)?.teardown;
  const policy = TEARDOWN_POLICIES.includes(given as TeardownPolicy) ? (given as TeardownPolicy) : "always";
  return {
    runId,
    ok: false,
    sandboxId: undefined,
    reused: false,
    runtime: undefined,
    usage: undefined,
    handle: undefined,
    steps: [],
    collected: {},
    timings: { launchMs: 0, filesMs: 0, stepsMs: 0, collectMs: 0, teardownMs: 0, totalMs: 0 },
    teardown: { policy, outcome: "none", durationMs: 0 },
    listenerErrors: [],
    possibleLeaks: [],
  };
}

/** A teardown with nothing to tear down. */
function none(policy: TeardownPolicy): TeardownReport {
  return { policy, outcome: "none", durationMs: 0 };
}

/** The acquisition context of one runtime. */
function placed<H extends SandboxHandle>(shared: SharedAcquireContext<H>, placement: Placement<H>): AcquireContext<H> {
  return { ...shared, runtime: placement.runtime, provider: placement.runtime.provider, placement: placement.ref };
}

/** Why `check` refuses, as a sentence for a `runtime-skipped` event, or `undefined` when it passes. */
function refusal(check: () => void): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return `refuses the workload: ${toSandportError(error).message}`;
  }
}
