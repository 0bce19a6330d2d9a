import type { Terminal } from "./output/terminal.js";

/** What every command receives from the entry point. */
export interface CliContext {
  /** Where output goes (colours, redaction). */
  readonly terminal: Terminal;
  /** The process environment: the one place provider credentials are read from. */
  readonly env: NodeJS.ProcessEnv;
  /** Working directory for relative paths on the command line. */
  readonly cwd: string;
  /** Absolute path of the umbrella package's package.json (providers are found from its dependencies). */
  readonly manifestPath: string;
  /** The umbrella package's version. */
  readonly version: string;
  /** Aborted on the first Ctrl-C (SIGINT) or SIGTERM; long work tears down and exits 130. */
  readonly signal: AbortSignal;
}

/** Flags every command that reaches a provider accepts. */
export interface ProviderFlags {
  readonly provider?: string;
  readonly option: string[];
  readonly endpoint?: string;
  readonly owner?: string;
  readonly json?: boolean;
}
