import { randomUUID } from "node:crypto";
import { after, before, describe, it, type TestContext } from "node:test";
import {
  type ExecRequest,
  type LaunchSpec,
  type ResolvedCapabilities,
  resolveCapabilities,
  type SandboxHandle,
  type SandboxRuntime,
} from "@sandport/core";
import { CONFORMANCE_CHECKS, type ConformanceCheckId } from "./checks.js";
import type { ConformanceContext, ConformanceTimeouts, RuntimeConformanceOptions, RuntimeFixture } from "./options.js";
import { defaultHttpServer } from "./ports.js";

/** Label every sandbox of one suite run carries, with the run's unique id as value. */
export const RUN_LABEL = "sandport-conformance-run";
/** Label naming the group (`files`, `exec`, ...) that launched a sandbox. */
export const GROUP_LABEL = "sandport-conformance-group";
/** Launch env variable the suite adds, to prove launch env reaches commands. */
export const LAUNCH_ENV_NAME = "SANDPORT_CONFORMANCE_LAUNCH";
/** Value of {@link LAUNCH_ENV_NAME}. */
export const LAUNCH_ENV_VALUE = "launch-env-value";

/** Default time budgets; see {@link ConformanceTimeouts}. */
export const DEFAULT_TIMEOUTS: ConformanceTimeouts = {
  testMs: 30_000,
  hookMs: 120_000,
  promptMs: 5_000,
  commandTimeoutMs: 500,
  pollIntervalMs: 50,
};

/** Outcome of a check in this run, for `capabilities.exercised`; `deviated` is a listed known deviation that failed. */
export type CheckOutcome = "passed" | "failed" | "deviated";

/** Per-check options of {@link CheckGroup.check}. */
export interface CheckOptions {
  /** When set, the check is skipped with this reason (a capability the runtime lacks). */
  readonly unavailable?: string | undefined;
}

/** A `describe` of related checks that share one launched sandbox. */
export interface CheckGroup<H extends SandboxHandle> {
  readonly suite: ConformanceSuite<H>;
  readonly runtime: SandboxRuntime<H>;
  /** The group's shared sandbox, launched in `before` and destroyed in `after`. */
  sandbox(): H;
  /** Registers one check as a test titled `<id>: <what it asserts>`. */
  check(id: ConformanceCheckId, body: (t: TestContext) => Promise<void> | void, options?: CheckOptions): void;
}

/** Options of {@link ConformanceSuite.group}. */
export interface GroupOptions {
  /** When set, every check of the group is skipped with this reason and nothing is launched. */
  readonly unavailable?: string | undefined;
  /** Whether the group launches a shared sandbox. Default `true`. */
  readonly launch?: boolean;
}

/**
 * State of one suite run: the runtime, the sandboxes it launched (so teardown
 * always finds them), and the outcome of every check.
 */
export class ConformanceSuite<H extends SandboxHandle> implements ConformanceContext<H> {
  readonly name: string;
  readonly runtime: SandboxRuntime<H>;
  readonly capabilities: ResolvedCapabilities;
  readonly timeouts: ConformanceTimeouts;
  readonly reopen: (() => Promise<SandboxRuntime<H>>) | undefined;
  /** Unique id of this run, the value of {@link RUN_LABEL}. */
  readonly runId = `run-${randomUUID()}`;
  /** A short unique token for names that must not collide with other runs (files outside the workspace). */
  readonly token = this.runId.slice(4, 16);
  /** Outcomes of the checks that ran. */
  readonly outcomes = new Map<ConformanceCheckId, CheckOutcome>();
  /** Why each skipped check was skipped (the caller's reason or a missing capability). */
  readonly skipReasons = new Map<ConformanceCheckId, string>();
  /** Checks the caller skipped, with the reasons. */
  readonly skipped: Readonly<Partial<Record<ConformanceCheckId, string>>>;
  /** Checks the caller listed as known deviations, with the reasons. */
  readonly knownDeviations: Readonly<Partial<Record<ConformanceCheckId, string>>>;
  /** See {@link RuntimeConformanceOptions.unknownSandboxId}. */
  readonly unknownSandboxId: string;
  /** See {@link RuntimeConformanceOptions.httpServer}. */
  readonly httpServer: (port: number) => ExecRequest;
  /** The fixture's request counter, when it has one. */
  readonly requestCount: (() => number) | undefined;
  /** The fixture's runtime resolves the conformance egress names (`RuntimeFixture.egressProbe`). */
  readonly egressProbe: boolean;
  /** A line for every known deviation that failed as listed, printed when the suite ends. */
  readonly deviations: string[] = [];
  private readonly launchSpec: LaunchSpec;
  private readonly live = new Map<string, H>();
  private readonly fixture: RuntimeFixture<H>;

  constructor(options: RuntimeConformanceOptions<H>, fixture: RuntimeFixture<H>) {
    this.name = options.name;
    this.fixture = fixture;
    this.runtime = fixture.runtime;
    this.capabilities = resolveCapabilities(fixture.runtime);
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.launchSpec = options.launchSpec ?? {};
    this.skipped = options.skip ?? {};
    this.knownDeviations = options.knownDeviations ?? {};
    this.unknownSandboxId = options.unknownSandboxId ?? "sandport-conformance-no-such-sandbox";
    const reopen = fixture.reopen;
    this.reopen = reopen ? async () => reopen() : undefined;
    this.requestCount = fixture.requestCount;
    this.egressProbe = fixture.egressProbe === true;
    this.httpServer = options.httpServer ?? defaultHttpServer;
  }

  async launch(spec: LaunchSpec = {}): Promise<H> {
    return this.track(await this.runtime.launch(this.specFor(spec)));
  }

  /** The suite's launch spec merged with `spec` (env and labels key by key), run label and launch env included. */
  specFor(spec: LaunchSpec = {}): LaunchSpec {
    const base = this.launchSpec;
    return {
      ...base,
      ...spec,
      env: { ...base.env, [LAUNCH_ENV_NAME]: LAUNCH_ENV_VALUE, ...spec.env },
      labels: this.labelsFor(spec.labels),
    };
  }

  /** Remembers a sandbox launched outside {@link launch}, so teardown destroys it. */
  track(handle: H): H {
    this.live.set(handle.id, handle);
    return handle;
  }

  async destroy(handle: H): Promise<void> {
    await this.runtime.destroy(handle);
    this.live.delete(handle.id);
  }

  /** The labels {@link launch} gives a sandbox launched with `extra` labels. */
  labelsFor(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
    return { ...this.launchSpec.labels, [RUN_LABEL]: this.runId, ...extra };
  }

  /** Destroys every sandbox still alive, then runs the fixture's cleanup. Throws all failures together. */
  async teardown(): Promise<void> {
    const failures: unknown[] = [];
    for (const handle of [...this.live.values()]) {
      try {
        await this.destroy(handle);
      } catch (error) {
        failures.push(error);
      }
    }
    try {
      await this.fixture.cleanup?.();
    } catch (error) {
      failures.push(error);
    }
    if (failures.length > 0) {
      throw new AggregateError(failures, `${this.name}: teardown failed (${failures.length} problem(s))`);
    }
  }

  /** The skip reason of a check: the caller's, then the given capability reason. */
  skipReason(id: ConformanceCheckId, unavailable?: string): string | undefined {
    const explicit = this.skipped[id];
    if (explicit !== undefined) return `skipped by ${this.name}: ${explicit}`;
    return unavailable;
  }

  /** Declares a `describe` of checks sharing one sandbox; the sandbox is launched only if a check will run. */
  group(title: string, options: GroupOptions, declare: (group: CheckGroup<H>) => void): void {
    describe(title, () => {
      let shared: H | undefined;
      let runnable = 0;
      const group: CheckGroup<H> = {
        suite: this,
        runtime: this.runtime,
        sandbox: () => {
          if (shared === undefined)
            throw new Error(`the ${title} group's sandbox was not launched (see its before hook)`);
          return shared;
        },
        check: (id, body, checkOptions = {}) => {
          const reason = this.skipReason(id, options.unavailable ?? checkOptions.unavailable);
          if (reason === undefined) runnable++;
          else this.skipReasons.set(id, reason);
          const deviation = this.knownDeviations[id];
          const title = `${id}: ${CONFORMANCE_CHECKS[id]}`;
          if (deviation === undefined) {
            it(title, { skip: reason ?? false, timeout: this.timeouts.testMs }, async (t) => {
              try {
                await body(t);
                this.outcomes.set(id, "passed");
              } catch (error) {
                this.outcomes.set(id, "failed");
                throw error;
              }
            });
            return;
          }
          it(`${title} [KNOWN DEVIATION of ${this.name}]`, {
            skip: reason ?? false,
            timeout: this.timeouts.testMs,
          }, async (t) => {
            try {
              await body(t);
            } catch (error) {
              this.outcomes.set(id, "deviated");
              const message = `KNOWN DEVIATION ${id} (${this.name}): ${deviation} — failed with: ${errorText(error)}`;
              this.deviations.push(message);
              t.todo(message);
              return;
            }
            this.outcomes.set(id, "failed");
            throw new Error(
              `${id} is listed in knownDeviations of ${this.name} (${deviation}) but passed: remove it from the list`,
            );
          });
        },
      };
      declare(group);
      if (options.launch === false || runnable === 0) return;
      before(
        async () => {
          shared = await this.launch({ labels: { [GROUP_LABEL]: title } });
        },
        { timeout: this.timeouts.hookMs },
      );
      after(
        async () => {
          if (shared === undefined) return;
          const handle = shared;
          shared = undefined;
          await this.destroy(handle);
        },
        { timeout: this.timeouts.hookMs },
      );
    });
  }
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? text;
}
