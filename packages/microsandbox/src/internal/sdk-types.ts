/**
 * The slice of the `microsandbox` SDK this adapter uses, described structurally.
 *
 * Nothing outside `sdk.ts` imports `microsandbox` at runtime; everything else
 * talks to these interfaces, so a test can hand in a fake and a missing SDK
 * only fails at first use. `sdk-types.node22.test.ts` checks at compile time
 * that the real SDK still satisfies every member declared here.
 *
 * @module
 */

/** The sandbox builder (`Sandbox.builder(name)`): every setter this adapter calls. */
export interface MsbSandboxBuilder {
  image(reference: string): this;
  fromSnapshot(pathOrName: string): this;
  cpus(count: number): this;
  memory(mebibytes: number): this;
  workdir(path: string): this;
  envs(vars: Record<string, string>): this;
  labels(labels: Record<string, string>): this;
  maxDuration(seconds: number): this;
  idleTimeout(seconds: number): this;
  disableNetwork(): this;
  /** POST the create (cloud: `?start=true&wait_for=running`); resolves once the sandbox runs. */
  create(): Promise<MsbSandbox>;
}

/** Options of one command (`ExecOptionsBuilder`). */
export interface MsbExecOptions {
  args(args: string[]): this;
  cwd(cwd: string): this;
  envs(vars: Record<string, string>): this;
  /** A writable stdin: `ExecHandle.takeStdin()` returns its sink. */
  stdinPipe(): this;
}

/** One event of a running command. */
export type MsbExecEvent =
  | { readonly kind: "started"; readonly pid: number }
  | { readonly kind: "stdout"; readonly data: Uint8Array }
  | { readonly kind: "stderr"; readonly data: Uint8Array }
  | { readonly kind: "exited"; readonly code: number };

/** The stdin sink of a command started with `stdinPipe()`. */
export interface MsbExecSink {
  write(data: Uint8Array | string): Promise<void>;
  /** Sends EOF (an empty `core.exec.stdin`). */
  close(): Promise<void>;
}

/**
 * A running command. Iterating yields its events until it exits. In 0.6.18 it
 * also yields `undefined` for the agent messages it has no kind for:
 * `core.exec.failed` (the command never started; its reason is dropped) and
 * `core.exec.stdin.error`.
 */
export interface MsbExecHandle extends AsyncIterable<MsbExecEvent> {
  /** The stdin sink, once; `null` after the first call or without `stdinPipe()`. */
  takeStdin(): Promise<MsbExecSink | null>;
  /** `core.exec.signal` 9. */
  kill(): Promise<void>;
}

/** What `list` and `stat` report about an entry. */
export interface MsbFsEntry {
  readonly path: string;
  readonly kind: "file" | "directory" | "symlink" | "other";
  readonly size: number;
  readonly mode: number;
  readonly modified: Date | null;
}

/** A streamed file read. */
export interface MsbFsReadStream extends AsyncIterable<Uint8Array> {}

/** The guest filesystem (`sandbox.fs()`), one agent connection per call. */
export interface MsbFs {
  readStream(path: string): Promise<MsbFsReadStream>;
  write(path: string, data: Uint8Array | string): Promise<void>;
  list(path: string): Promise<MsbFsEntry[]>;
  /** `create_dir_all`: parents too, fine when it exists. */
  mkdir(path: string): Promise<void>;
  /** A file or a symlink (not a directory). */
  remove(path: string): Promise<void>;
  /** A directory tree. */
  removeDir(path: string): Promise<void>;
}

/** A sandbox the SDK is attached to. Keeps the backend it was created with. */
export interface MsbSandbox {
  readonly name: string;
  execStreamWith(cmd: string, configure: (options: MsbExecOptions) => MsbExecOptions): Promise<MsbExecHandle>;
  fs(): MsbFs;
  stop(): Promise<void>;
}

/** A sandbox's record (`Sandbox.get`, list pages): no connection. Keeps its backend. */
export interface MsbSandboxHandle {
  readonly name: string;
  readonly status: string;
  /** The spec as JSON, labels and env included. */
  readonly configJson: string;
  readonly createdAt: Date | null;
  /** Attach to the running sandbox. */
  connect(): Promise<MsbSandbox>;
  /** Stop the sandbox (gracefully, then forcibly). */
  stop(): Promise<void>;
}

/** One page of `Sandbox.listWith`. */
export interface MsbSandboxPage {
  readonly sandboxes: MsbSandboxHandle[];
  readonly nextCursor?: string | undefined;
}

/** The list request builder. */
export interface MsbListBuilder {
  limit(limit: number): this;
  cursor(cursor: string): this;
  labels(labels: Record<string, string>): this;
}

/** The static entry points. Each reads the process-wide default backend when it is called. */
export interface MsbSandboxStatics {
  builder(name: string): MsbSandboxBuilder;
  get(name: string): Promise<MsbSandboxHandle>;
  start(name: string): Promise<MsbSandbox>;
  remove(name: string): Promise<void>;
  listWith(configure: (list: MsbListBuilder) => MsbListBuilder): Promise<MsbSandboxPage>;
}

/**
 * The native backend scope of `microsandbox/native`: push a default backend,
 * returning a token, and pop it again. Synchronous, process-wide.
 */
export interface MsbBackendScope {
  pushDefaultBackend(kind: string, url?: string | null, apiKey?: string | null, profile?: string | null): number;
  popDefaultBackend(token: number): void;
}

/** What the loader hands the adapter: the module's `Sandbox` and the native backend scope. */
export interface MicrosandboxSdk {
  readonly Sandbox: MsbSandboxStatics;
  readonly native: MsbBackendScope;
}
