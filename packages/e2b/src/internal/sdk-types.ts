/**
 * The slice of the `e2b` SDK this adapter uses, described structurally.
 *
 * Nothing outside `sdk.ts` imports `e2b` at runtime; everything else talks to
 * these interfaces, so a test can hand in a fake and a missing SDK only fails
 * at first use. `sdk-types.test.ts` checks at compile time that the real SDK
 * still satisfies every member declared here.
 *
 * @module
 */

/**
 * Connection fields sent on every SDK call. Each one the SDK would otherwise
 * take from `E2B_*` environment variables is always present, so the ambient
 * fallback cannot fire.
 */
export interface E2BConnectionFields {
  /** API key, sent as `X-API-KEY` to the control plane. Never empty (the SDK treats `""` as absent). */
  readonly apiKey: string;
  /** Domain, used for hosted sandbox URLs. */
  readonly domain: string;
  /** Control-plane base URL. */
  readonly apiUrl: string;
  /** Base URL of the sandbox (envd) API, or absent where it is per sandbox and set on `connect`. */
  readonly sandboxUrl?: string;
  /** Always `false`: `true` would redirect everything to localhost. */
  readonly debug: false;
  /** Deadline of one HTTP request in ms. Always explicit: the SDK default is 60 s. */
  readonly requestTimeoutMs: number;
  /** How often the SDK itself retries a control-plane 429 that carries `Retry-After`. */
  readonly retries: number;
  /** Cancels the in-flight request. */
  readonly signal?: AbortSignal;
}

/** Options of `Sandbox.create`. */
export interface E2BCreateOptions extends E2BConnectionFields {
  /** Stored on the sandbox and searchable with `Sandbox.list`. */
  readonly metadata: Record<string, string>;
  /** Environment for every command in the sandbox. */
  readonly envs: Record<string, string>;
  /** Sandbox lifetime in ms. Always sent: without it the server picks. */
  readonly timeoutMs: number;
  /** Outbound network access. */
  readonly allowInternetAccess: boolean;
  /** What happens at the end of the lifetime. Always `kill` here. */
  readonly lifecycle: { readonly onTimeout: "kill" };
  /**
   * Inbound access. `allowPublicTraffic: false` makes every port answer only
   * requests carrying the sandbox's traffic access token. Always sent; SDKs
   * before 2.7 drop it (the sandbox is then public, which `launch` detects).
   */
  readonly network: {
    readonly allowPublicTraffic: boolean;
    /** Destinations allowed despite `denyOut` (domains, `*.` wildcards, IPv4 addresses and ranges). */
    readonly allowOut?: string[];
    /** Destinations denied: here only ever `["0.0.0.0/0"]`, with `allowOut`. */
    readonly denyOut?: string[];
  };
}

/** Options of `Sandbox.connect`. */
export interface E2BConnectOptions extends E2BConnectionFields {
  /** New lifetime from now in ms (only ever extends a running sandbox). */
  readonly timeoutMs: number;
}

/** Options of `Sandbox.list`. */
export interface E2BListOptions extends Omit<E2BConnectionFields, "signal"> {
  /** Server-side filter; all metadata pairs must match. */
  readonly query: {
    readonly metadata: Record<string, string>;
    readonly state: Array<"running" | "paused">;
  };
  /** Page size. */
  readonly limit: number;
}

/** What `Sandbox.getInfo` and the list pages report about one sandbox. */
export interface E2BSandboxInfo {
  readonly sandboxId: string;
  readonly templateId: string;
  readonly metadata: Record<string, string>;
  readonly startedAt: Date;
  readonly state: "running" | "paused";
  /** vCPUs the sandbox has (its template's). */
  readonly cpuCount?: number;
  /** Memory the sandbox has, in MiB (its template's). */
  readonly memoryMB?: number;
}

/** The paginator `Sandbox.list` returns. */
export interface E2BSandboxPaginator {
  readonly hasNext: boolean;
  nextItems(options?: E2BConnectionFields): Promise<E2BSandboxInfo[]>;
}

/** Per-call options of envd requests (files, commands). */
export interface E2BRequestOptions {
  readonly requestTimeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** Options of `commands.run` as this adapter calls it: always in the background, always with a timeout. */
export interface E2BRunOptions extends E2BRequestOptions {
  readonly background: true;
  readonly cwd?: string;
  readonly envs?: Record<string, string>;
  /** Command lifetime in ms. Always sent: the SDK default (60 s) must never apply. */
  readonly timeoutMs: number;
  /** `true` keeps the command's stdin open for `sendStdin` (spawn); `false` gives it none. */
  readonly stdin: boolean;
  readonly onStdout?: (data: string) => void | Promise<void>;
  readonly onStderr?: (data: string) => void | Promise<void>;
}

/** Options of `pty.create` as this adapter calls it. */
export interface E2BPtyCreateOptions extends E2BRequestOptions {
  readonly cols: number;
  readonly rows: number;
  readonly cwd?: string;
  readonly envs?: Record<string, string>;
  /** Lifetime of the terminal's process in ms (its Start stream's deadline). */
  readonly timeoutMs: number;
  readonly onData: (data: Uint8Array) => void | Promise<void>;
}

/** `sandbox.pty`: a terminal running `/bin/bash -i -l`, typed into, resized and killed by pid. */
export interface E2BPty {
  create(options: E2BPtyCreateOptions): Promise<E2BCommandHandle>;
  sendInput(pid: number, data: Uint8Array, options?: E2BRequestOptions): Promise<void>;
  resize(pid: number, size: { cols: number; rows: number }, options?: E2BRequestOptions): Promise<void>;
  kill(pid: number, options?: E2BRequestOptions): Promise<boolean>;
}

/** What a finished command reports. */
export interface E2BCommandResult {
  readonly exitCode: number;
  readonly error?: string;
  readonly stdout: string;
  readonly stderr: string;
}

/** A started command. */
export interface E2BCommandHandle {
  readonly pid: number;
  /** Resolves on exit 0; rejects with `CommandExitError` on any other exit code. */
  wait(): Promise<E2BCommandResult>;
  kill(): Promise<boolean>;
  disconnect(): Promise<void>;
}

/** A process envd is tracking. */
export interface E2BProcessInfo {
  readonly pid: number;
  readonly tag?: string;
  readonly cmd: string;
  readonly args: string[];
  readonly envs: Record<string, string>;
  readonly cwd?: string;
}

/** `sandbox.commands`. */
export interface E2BCommands {
  run(command: string, options: E2BRunOptions): Promise<E2BCommandHandle>;
  list(options?: E2BRequestOptions): Promise<E2BProcessInfo[]>;
  kill(pid: number, options?: E2BRequestOptions): Promise<boolean>;
  /**
   * Writes to the stdin of a command started with `stdin: true` (envd
   * `SendInput`). Bytes are sent as they are from SDK 2.13; earlier SDKs take
   * a string only (they would send a `Uint8Array` as its decimal listing).
   */
  sendStdin(pid: number, data: string | Uint8Array, options?: E2BRequestOptions): Promise<void>;
  /**
   * Closes a command's stdin (envd `CloseStdin`, from envd 0.5.2; older envd
   * makes the SDK throw). Absent before SDK 2.13.
   */
  closeStdin?(pid: number, options?: E2BRequestOptions): Promise<void>;
}

/** One entry reported by `files.list` / `files.getInfo`. */
export interface E2BEntryInfo {
  readonly name: string;
  readonly type?: string;
  readonly path: string;
  readonly size: number;
  readonly mode: number;
  readonly modifiedTime?: Date;
  readonly symlinkTarget?: string;
}

/** One file of a batched `files.write`. */
export interface E2BWriteEntry {
  readonly path: string;
  readonly data: ArrayBuffer;
}

/** `sandbox.files`. */
export interface E2BFilesystem {
  /** Batched upload: one multipart request for all entries. */
  write(files: E2BWriteEntry[], options?: E2BRequestOptions): Promise<unknown>;
  read(path: string, options: E2BRequestOptions & { format: "bytes" }): Promise<Uint8Array>;
  list(path: string, options?: E2BRequestOptions & { depth?: number }): Promise<E2BEntryInfo[]>;
  getInfo(path: string, options?: E2BRequestOptions): Promise<E2BEntryInfo>;
  makeDir(path: string, options?: E2BRequestOptions): Promise<boolean>;
  remove(path: string, options?: E2BRequestOptions): Promise<void>;
}

/** A connected sandbox instance. */
export interface E2BSandbox {
  readonly sandboxId: string;
  readonly commands: E2BCommands;
  /** Terminals (`sandbox.pty`): `/bin/bash -i -l` on a pseudo-terminal. */
  readonly pty: E2BPty;
  readonly files: E2BFilesystem;
  /**
   * Set (from the create or connect answer) when the sandbox is private: every
   * request to one of its ports must carry it as `e2b-traffic-access-token`.
   */
  readonly trafficAccessToken?: string;
  /** `<port>-<sandboxId>.<sandbox domain>`: the host that serves `port` of this sandbox. */
  getHost(port: number): string;
}

/** What the snapshot calls report about one snapshot (E2B's `SnapshotInfo`: nothing more). */
export interface E2BSnapshotInfo {
  /** `<team>/<name>:<tag>` for a named snapshot; what `Sandbox.create` takes as the template. */
  readonly snapshotId: string;
  readonly names: string[];
}

/** The paginator `Sandbox.listSnapshots` returns. */
export interface E2BSnapshotPaginator {
  readonly hasNext: boolean;
  nextItems(options?: E2BConnectionFields): Promise<E2BSnapshotInfo[]>;
}

/** The static side of the SDK's `Sandbox` class. */
export interface E2BSandboxClass {
  create(template: string, options: E2BCreateOptions): Promise<E2BSandbox>;
  connect(sandboxId: string, options: E2BConnectOptions): Promise<E2BSandbox>;
  /** Resolves `false` when the sandbox was not found. */
  kill(sandboxId: string, options: E2BConnectionFields): Promise<boolean>;
  /** Rejects with `SandboxNotFoundError` when absent. */
  getInfo(sandboxId: string, options: E2BConnectionFields): Promise<E2BSandboxInfo>;
  /** Resolves `false` when the sandbox was already paused. */
  pause(sandboxId: string, options: E2BConnectionFields): Promise<boolean>;
  list(options: E2BListOptions): E2BSandboxPaginator;
  /**
   * `POST /sandboxes/{id}/snapshots`; the sandbox keeps running. Optional:
   * SDKs before it lack the snapshot calls, and `snapshot` then refuses.
   */
  createSnapshot?(
    sandboxId: string,
    options: E2BConnectionFields & { readonly name?: string },
  ): Promise<E2BSnapshotInfo>;
  /** `GET /snapshots`, the team's snapshots, page by page. */
  listSnapshots?(options: Omit<E2BConnectionFields, "signal"> & { readonly limit?: number }): E2BSnapshotPaginator;
  /** `DELETE /templates/{id}`; resolves `false` when it was not found. */
  deleteSnapshot?(snapshotId: string, options: E2BConnectionFields): Promise<boolean>;
}

/** The module shape this adapter needs from the `e2b` package. */
export interface E2BSdkModule {
  readonly Sandbox: E2BSandboxClass;
}
