/**
 * agent-native's sandbox seam for its `run-code` tool, as structural types:
 * the package does not export the module that declares them, so the bridge
 * states them here and `types.test.ts` checks both directions against the
 * installed `.d.ts`.
 */

/** One run of a prepared module: the parent built it and runs the loopback bridge it calls. */
export interface AgentNativeRunRequest {
  /** The whole ESM module to run; it embeds the bridge's loopback URL and token. Opaque to the adapter. */
  moduleSource: string;
  /** The scrubbed environment the module runs with (no secrets); nothing may be added from the host. */
  env: Record<string, string>;
  /** The wall-clock limit in milliseconds, which the adapter enforces. */
  timeoutMs: number;
  /** The port of the parent's bridge on the host's 127.0.0.1, which the module calls. */
  bridgePort: number;
}

/** What one run produced. */
export interface AgentNativeRunResult {
  stdout: string;
  stderr: string;
  /** The exit code; `null` when the process was killed (a timeout). */
  exitCode: number | null;
  /** True when the run was killed for passing `timeoutMs`. */
  timedOut: boolean;
}

/** A backend for `run-code`: registered with agent-native's `registerSandboxAdapter`. */
export interface AgentNativeSandboxAdapter {
  /** A stable id, for diagnostics and selection. */
  readonly id: string;
  /** Runs one prepared module and captures its output. */
  run(request: AgentNativeRunRequest): Promise<AgentNativeRunResult>;
}
