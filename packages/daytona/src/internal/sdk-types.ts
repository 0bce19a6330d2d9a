/**
 * The slice of the Daytona SDK (`@daytona/sdk`, or `@daytonaio/sdk` under
 * its old name) this adapter uses, described structurally.
 *
 * Nothing outside `sdk.ts` imports the SDK at runtime; everything else talks
 * to these interfaces, so a test can hand in a fake and a missing SDK only
 * fails at first use. `sdk-types.test.ts` checks at compile time that the
 * oldest and newest supported SDKs still satisfy every member declared here,
 * except the low-level API (`DaytonaSandboxApi`), which the SDK keeps in a
 * field its types call private: a runtime test checks that one.
 *
 * @module
 */

/**
 * What `new Daytona(...)` gets: every value the SDK would otherwise read from
 * `DAYTONA_*` variables or a `.env` file. The SDK falls back to them unless
 * the credentials, `apiUrl` and `target` are all given, so all are, always.
 */
export interface DaytonaClientConfig {
  /** API key; absent when a JWT and organization id are given instead. */
  readonly apiKey?: string;
  readonly jwtToken?: string;
  readonly organizationId?: string;
  readonly apiUrl: string;
  readonly target: string;
  /** Observe state changes by polling: no event-stream connection outlives a call (0.205+; older SDKs always poll). */
  readonly useDeprecatedPolling: true;
  readonly otelEnabled: false;
  /** Client-side bound of every HTTP request in ms (0.205+; older SDKs ignore it). */
  readonly requestTimeoutMs: number;
}

/** One volume mounted into a sandbox. */
export interface DaytonaVolumeMount {
  readonly volumeId: string;
  readonly mountPath: string;
  readonly subpath?: string;
}

/** Parameters of `Daytona.create`, as this adapter sends them. */
export interface DaytonaCreateParams {
  readonly snapshot?: string;
  readonly image?: string;
  readonly resources?: { readonly cpu?: number; readonly memory?: number; readonly disk?: number };
  readonly envVars: Record<string, string>;
  readonly labels: Record<string, string>;
  readonly public: false;
  readonly autoStopInterval: number;
  readonly autoArchiveInterval: number;
  readonly autoDeleteInterval: number;
  readonly networkBlockAll: boolean;
  /** IPv4 CIDR ranges, comma-separated (every supported SDK). */
  readonly networkAllowList?: string;
  /** Names and `*.` wildcards, comma-separated (0.216 on; older SDKs drop it: see `refuseDroppedDomainList`). */
  readonly domainAllowList?: string;
  readonly volumes?: DaytonaVolumeMount[];
}

/** A started command's result from `process.executeCommand`: stdout and stderr merged. */
export interface DaytonaExecuteResponse {
  readonly exitCode: number;
  readonly result: string;
}

/** One command of a session. `exitCode` is absent while it runs (and for a command that was killed). */
export interface DaytonaSessionCommand {
  readonly id: string;
  readonly command: string;
  readonly exitCode?: number;
}

/** A session and its commands, in the order they were sent. */
export interface DaytonaSession {
  readonly sessionId: string;
  readonly commands: DaytonaSessionCommand[];
}

/** `sandbox.process`. */
export interface DaytonaProcess {
  /** Runs a command to its end; `timeout` in seconds (0 or absent: none). */
  executeCommand(
    command: string,
    cwd?: string,
    env?: Record<string, string>,
    timeout?: number,
  ): Promise<DaytonaExecuteResponse>;
  createSession(sessionId: string): Promise<void>;
  getSession(sessionId: string): Promise<DaytonaSession>;
  executeSessionCommand(
    sessionId: string,
    request: { command: string; runAsync: boolean; suppressInputEcho?: boolean },
  ): Promise<{ cmdId?: string }>;
  getSessionCommand(sessionId: string, commandId: string): Promise<DaytonaSessionCommand>;
  /** The logs so far (no callbacks), or followed over a WebSocket until the command ends (callbacks). */
  getSessionCommandLogs(
    sessionId: string,
    commandId: string,
  ): Promise<{ output?: string; stdout?: string; stderr?: string }>;
  getSessionCommandLogs(
    sessionId: string,
    commandId: string,
    onStdout: (chunk: string) => void,
    onStderr: (chunk: string) => void,
  ): Promise<void>;
  sendSessionCommandInput(sessionId: string, commandId: string, data: string): Promise<void>;
  deleteSession(sessionId: string): Promise<void>;
  /**
   * Starts the daemon's PTY session (an interactive login shell on a terminal) and connects to
   * it over a WebSocket; resolves once the daemon confirmed the connection.
   */
  createPty(options: DaytonaPtyOptions): Promise<DaytonaPtyHandle>;
  /** Kills a PTY session's shell and its descendants (`DELETE process/pty/{id}`). */
  killPtySession(sessionId: string): Promise<void>;
}

/** What `process.createPty` gets. */
export interface DaytonaPtyOptions {
  readonly id: string;
  readonly cwd?: string;
  readonly envs?: Record<string, string>;
  readonly cols?: number;
  readonly rows?: number;
  /** Each chunk of the terminal's output, in order. */
  readonly onData: (data: Uint8Array) => void;
}

/** A connected PTY session (`PtyHandle`). */
export interface DaytonaPtyHandle {
  /** Sends bytes over the WebSocket; throws once it is no longer connected. */
  sendInput(data: string | Uint8Array): Promise<void>;
  /** `POST process/pty/{id}/resize`. */
  resize(cols: number, rows: number): Promise<unknown>;
  /** Resolves once the shell ended: its exit code (absent when the connection closed without one). */
  wait(): Promise<{ exitCode?: number; error?: string }>;
  disconnect(): Promise<void>;
}

/** One file of a batched upload. */
export interface DaytonaFileUpload {
  source: Buffer;
  destination: string;
}

/** `sandbox.fs`. */
export interface DaytonaFileSystem {
  /** One multipart request for every file; parents are created. `timeout` in seconds. */
  uploadFiles(files: DaytonaFileUpload[], timeout?: number): Promise<void>;
  downloadFile(remotePath: string, timeout?: number): Promise<Buffer>;
  createFolder(path: string, mode: string): Promise<void>;
}

/** A sandbox as the SDK models it (`create`, `get`, `list`). */
export interface DaytonaSandbox {
  readonly id: string;
  readonly labels: Record<string, string>;
  readonly state?: string;
  readonly createdAt?: string;
  /** vCPUs the sandbox has (from the create's answer). */
  readonly cpu?: number;
  /** Memory in GiB. */
  readonly memory?: number;
  /** Disk in GiB. */
  readonly disk?: number;
  readonly process: DaytonaProcess;
  readonly fs: DaytonaFileSystem;
  /** Starts a stopped sandbox and waits until it is started; `timeout` in seconds. */
  start(timeout?: number): Promise<void>;
  /** Stops the sandbox and waits until it is stopped; `timeout` in seconds. */
  stop(timeout?: number): Promise<void>;
  waitUntilStarted(timeout?: number): Promise<void>;
  waitUntilStopped(timeout?: number): Promise<void>;
  getUserHomeDir(): Promise<string | undefined>;
  getPreviewLink(port: number): Promise<{ url: string; token: string }>;
  /**
   * Snapshots the sandbox's filesystem under `name` and waits until it is back
   * in its previous state (`timeout` in seconds). From 0.216; 0.180 has only
   * {@link DaytonaSandbox._experimental_createSnapshot}.
   */
  createSnapshot?(name: string, timeout?: number): Promise<void>;
  /** The same call under its older name (0.180 and later, deprecated from 0.216). */
  _experimental_createSnapshot?(name: string, timeout?: number): Promise<void>;
  /**
   * Forks the sandbox (one `POST /api/sandbox/{id}/fork`, named `params.name`)
   * and waits until the fork is started (`timeout` in seconds). From 0.216;
   * 0.180 has only {@link DaytonaSandbox._experimental_fork}.
   */
  fork?(params?: { name?: string }, timeout?: number): Promise<DaytonaSandbox>;
  /** The same call under its older name (0.180 and later, deprecated from 0.216). */
  _experimental_fork?(params?: { name?: string }, timeout?: number): Promise<DaytonaSandbox>;
  /** Replaces every label of the sandbox (`PUT /api/sandbox/{id}/labels`) and resolves with those it now has. */
  setLabels(labels: Record<string, string>): Promise<Record<string, string>>;
}

/** A snapshot as the SDK's `SnapshotService` reports it (`SnapshotDto`), every field the adapter reads. */
export interface DaytonaSnapshotRecord {
  readonly id: string;
  readonly name: string;
}

/** The SDK's `SnapshotService` (`daytona.snapshot`), through the calls every supported version has. */
export interface DaytonaSnapshotService {
  /** One page (from 1) of the organization's snapshots. */
  list(
    page?: number,
    limit?: number,
  ): Promise<{ readonly items: DaytonaSnapshotRecord[]; readonly totalPages: number }>;
  /** A snapshot by id or name; `DaytonaNotFoundError` when absent. */
  get(idOrName: string): Promise<DaytonaSnapshotRecord>;
  /** Deletes a snapshot. Pass the object `get` returned: 0.180 takes no name, only the object, whose id it uses. */
  delete(snapshot: string | DaytonaSnapshotRecord): Promise<void>;
}

/** The Daytona client. */
export interface DaytonaClient {
  /** Creates a sandbox and waits until it is started (a build included); `timeout` in seconds. */
  create(params: DaytonaCreateParams, options: { timeout: number }): Promise<DaytonaSandbox>;
  get(sandboxIdOrName: string): Promise<DaytonaSandbox>;
  /** The organization's snapshots. */
  readonly snapshot: DaytonaSnapshotService;
}

/** The module shape this adapter needs from the SDK. */
export interface DaytonaSdkModule {
  readonly Daytona: new (config: DaytonaClientConfig) => DaytonaClient;
  readonly Image: { base(image: string): { readonly dockerfile: string } };
}

/** Per-request options of the low-level API (axios): a deadline and a signal that cancel the request. */
export interface LowLevelRequestOptions {
  readonly timeout: number;
  readonly signal?: AbortSignal;
}

/**
 * A sandbox exactly as the API answers it, every field the adapter reads:
 * also those the SDK's `Sandbox` class does not copy (`sandboxClass` and
 * `warmPoolId` before 0.205).
 */
export interface DaytonaSandboxRecord {
  readonly id: string;
  readonly labels?: Record<string, string>;
  readonly state?: string;
  readonly errorReason?: string;
  readonly createdAt?: string;
  readonly target?: string;
  readonly snapshot?: string;
  readonly user?: string;
  readonly env?: Record<string, string>;
  readonly public?: boolean;
  readonly cpu?: number;
  readonly memory?: number;
  readonly disk?: number;
  readonly autoStopInterval?: number;
  readonly autoArchiveInterval?: number;
  readonly autoDeleteInterval?: number;
  readonly networkBlockAll?: boolean;
  readonly networkAllowList?: string | null;
  readonly domainAllowList?: string | null;
  readonly volumes?: DaytonaVolumeMount[];
  readonly buildInfo?: { readonly dockerfileContent?: string };
  readonly sandboxClass?: string;
  readonly warmPoolId?: string | null;
}

/** The body of `POST /api/sandbox` as the low-level API takes it. */
export interface DaytonaCreateBody {
  readonly snapshot?: string;
  readonly buildInfo?: { readonly dockerfileContent: string };
  readonly user?: string;
  readonly env: Record<string, string>;
  readonly labels: Record<string, string>;
  readonly public: boolean;
  readonly target: string;
  readonly cpu?: number;
  readonly memory?: number;
  readonly disk?: number;
  readonly autoStopInterval: number;
  readonly autoArchiveInterval: number;
  readonly autoDeleteInterval: number;
  readonly networkBlockAll: boolean;
  readonly networkAllowList?: string;
  readonly domainAllowList?: string;
  readonly volumes?: DaytonaVolumeMount[];
}

/**
 * The SDK's low-level sandbox API (`SandboxApi` of `@daytona/api-client`),
 * which takes per-request options where the `Daytona` class takes none. The
 * organization and `verbose` positions are always left to the client's defaults.
 */
export interface DaytonaSandboxApi {
  getSandbox(
    sandboxIdOrName: string,
    organizationId: undefined,
    verbose: undefined,
    options: LowLevelRequestOptions,
  ): Promise<{ data: DaytonaSandboxRecord }>;
  createSandbox(
    body: DaytonaCreateBody,
    organizationId: undefined,
    options: LowLevelRequestOptions,
  ): Promise<{ data: DaytonaSandboxRecord }>;
  deleteSandbox(sandboxIdOrName: string, organizationId: undefined, options: LowLevelRequestOptions): Promise<unknown>;
  /**
   * One page of the organization's sandboxes. Only the first seven positions
   * are the same in every supported SDK, so no per-request options (the
   * client's `requestTimeoutMs` still bounds it).
   */
  listSandboxes(
    organizationId: undefined,
    cursor: string | undefined,
    limit: number,
    id: undefined,
    name: undefined,
    labels: string,
    includeErroredDeleted: boolean,
  ): Promise<{ data: { items: DaytonaSandboxRecord[]; nextCursor?: string | null } }>;
}
