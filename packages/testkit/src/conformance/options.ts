import type { ExecRequest, LaunchSpec, ResolvedCapabilities, SandboxHandle, SandboxRuntime } from "@sandport/core";
import type { ConformanceCheckId } from "./checks.js";

/**
 * What a {@link RuntimeConformanceOptions.createRuntime} factory returns: the
 * runtime under test, plus how to open it again and how to clean up after it.
 */
export interface RuntimeFixture<H extends SandboxHandle = SandboxHandle> {
  /** The runtime under test. The whole suite shares it. */
  readonly runtime: SandboxRuntime<H>;
  /**
   * Builds a second runtime over the same sandboxes, as a new process would
   * (same root, account, owner). Enables the checks that reattach from a new
   * instance; without it they are skipped, saying so.
   */
  readonly reopen?: () => SandboxRuntime<H> | Promise<SandboxRuntime<H>>;
  /** Runs once after every sandbox the suite launched is destroyed (remove a temp root, stop an emulator). */
  readonly cleanup?: () => void | Promise<void>;
  /**
   * How many requests have reached the provider so far (an emulator's request
   * count). When given, the checks of refused calls also prove that a refusal
   * sent nothing.
   */
  readonly requestCount?: () => number;
  /**
   * The runtime resolves the conformance names (`allowed.sandport.test`,
   * `denied.sandport.test`) with `conformanceEgressResolver`, so that its
   * egress reaches the test servers on this machine's loopback. Enables
   * `lifecycle.network-allow`; without it that check is skipped, saying so.
   */
  readonly egressProbe?: true;
}

/** Time budgets of the suite, in milliseconds. */
export interface ConformanceTimeouts {
  /** Budget of each test (node:test `timeout`). Default `30_000`. */
  readonly testMs: number;
  /** Budget of each hook that launches or destroys sandboxes. Default `120_000`. */
  readonly hookMs: number;
  /**
   * How soon a killed command must come back: a command that times out must
   * return within `commandTimeoutMs + promptMs`, an aborted call within
   * `promptMs` of the abort. Default `5_000`.
   */
  readonly promptMs: number;
  /** The `timeoutMs` given to commands that are meant to time out (e.g. `sleep 30`). Default `500`. */
  readonly commandTimeoutMs: number;
  /** Interval between `commandStatus` polls. Default `50`. */
  readonly pollIntervalMs: number;
}

/** Options of {@link describeRuntimeConformance}. */
export interface RuntimeConformanceOptions<H extends SandboxHandle = SandboxHandle> {
  /** Name of the top-level `describe`, e.g. `"LocalRuntime (namespaces)"`. */
  readonly name: string;
  /**
   * Creates the runtime under test. Called once, while the suite is being
   * declared (so capability-driven skips show up as skips); launching no
   * sandbox is expected of it. Everything it returns is cleaned up at the end.
   */
  readonly createRuntime: () => RuntimeFixture<H> | Promise<RuntimeFixture<H>>;
  /**
   * Why this runtime cannot be tested here (no credentials, no bubblewrap).
   * When set, the suite is declared as one skipped `describe` carrying this
   * reason, and `createRuntime` is never called. Default: run.
   */
  readonly unavailable?: string | undefined;
  /**
   * Launch spec for every sandbox the suite launches. The suite adds its own
   * labels (a unique run label, a group label) and one env variable
   * (`SANDPORT_CONFORMANCE_LAUNCH`). Default `{}`.
   */
  readonly launchSpec?: LaunchSpec;
  /** Overrides of the default time budgets; see {@link ConformanceTimeouts}. */
  readonly timeouts?: Partial<ConformanceTimeouts>;
  /**
   * Checks to skip, each with the reason, which is printed as the test's skip
   * message. A reason is required: an empty one, or an unknown id, throws while
   * the suite is declared. Skipping never turns a check into a pass.
   */
  readonly skip?: Readonly<Partial<Record<ConformanceCheckId, string>>>;
  /**
   * Checks this runtime is known to fail today, each with the reason. Unlike
   * {@link skip}, the check still runs: a failure is reported as a `TODO`
   * test titled `KNOWN DEVIATION` (with the reason and the failure) and listed
   * again when the suite ends, so it never reads as a pass; a listed check
   * that passes fails, so the list cannot outlive the deviation. An empty
   * reason, an unknown id, or an id also in `skip` throws while the suite is
   * declared.
   */
  readonly knownDeviations?: Readonly<Partial<Record<ConformanceCheckId, string>>>;
  /**
   * An id that names no sandbox of this provider but is well-formed for it; used
   * by `lifecycle.reattach-unknown`. Default `"sandport-conformance-no-such-sandbox"`.
   */
  readonly unknownSandboxId?: string;
  /**
   * The command that serves its working directory over HTTP on `port`
   * (127.0.0.1), for `ports.http`. Default: Python's `http.server`.
   */
  readonly httpServer?: (port: number) => ExecRequest;
  /**
   * Declares the runtime's own extra tests inside the suite's `describe`, after
   * the shared checks. Called while the suite is declared; register tests with
   * `node:test` as usual and use the context to launch sandboxes that are
   * cleaned up with the rest.
   */
  readonly additionalTests?: (context: ConformanceContext<H>) => void;
}

/** What the suite hands to {@link RuntimeConformanceOptions.additionalTests}. */
export interface ConformanceContext<H extends SandboxHandle = SandboxHandle> {
  /** The suite's name. */
  readonly name: string;
  /** The runtime under test. */
  readonly runtime: SandboxRuntime<H>;
  /** `resolveCapabilities(runtime)`. */
  readonly capabilities: ResolvedCapabilities;
  /** The effective time budgets. */
  readonly timeouts: ConformanceTimeouts;
  /** The fixture's `reopen`, when it has one. */
  readonly reopen: (() => Promise<SandboxRuntime<H>>) | undefined;
  /**
   * Launches a sandbox with the suite's launch spec and labels, merged with
   * `spec` (env and labels merged key by key). Whatever is not destroyed with
   * {@link ConformanceContext.destroy} is destroyed when the suite ends.
   */
  launch(spec?: LaunchSpec): Promise<H>;
  /** Destroys a sandbox from {@link ConformanceContext.launch} and forgets it. */
  destroy(handle: H): Promise<void>;
}
