/**
 * The slice of the `modal` SDK (the Modal Labs one, 0.11.x) this adapter
 * uses, described structurally.
 *
 * Nothing outside `sdk.ts` imports `modal` at run time; everything else talks
 * to these interfaces, so a test can hand in a fake and a missing SDK only
 * fails at first use. `sdk-types.test.ts` checks at compile time that the real
 * SDK still satisfies every member declared here. The SDK speaks gRPC and has
 * no injectable transport: these interfaces are the adapter's boundary to it.
 *
 * @module
 */

/** Per-call options a gRPC middleware sees and passes on (nice-grpc's, plus the SDK's own). */
export interface ModalCallOptions {
  /** Cancels the call. */
  readonly signal?: AbortSignal;
  /** Deadline of the call in ms, applied by the SDK's timeout middleware. */
  readonly timeoutMs?: number;
  /** How often the SDK's retry middleware repeats a failed unary call. */
  readonly retries?: number;
}

/** One call as a middleware sees it: the request and the rest of the chain. */
export interface ModalMiddlewareCall<Request, Response> {
  readonly request: Request;
  /** The RPC being called (`/modal.client.ModalClient/SandboxCreateV2`). */
  readonly method: { readonly path: string };
  // biome-ignore lint/suspicious/noConfusingVoidType: nice-grpc's own type, which this one must match.
  next(request: Request, options: ModalCallOptions): AsyncGenerator<Response, Response | void, undefined>;
}

/** A nice-grpc client middleware, as `ModalClientParams.grpcMiddleware` takes it. */
export type ModalMiddleware = <Request, Response>(
  call: ModalMiddlewareCall<Request, Response>,
  options: ModalCallOptions,
  // biome-ignore lint/suspicious/noConfusingVoidType: nice-grpc's own type, which this one must match.
) => AsyncGenerator<Response, Response | void, undefined>;

/** The SDK's logger interface. */
export interface ModalLogger {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}

/**
 * What `new ModalClient(...)` is given: every field the SDK would otherwise
 * take from `MODAL_*` variables or `~/.modal.toml`, except the server URL,
 * which it reads only from there (see `pinned-client.ts`).
 */
export interface ModalClientParams {
  readonly tokenId: string;
  readonly tokenSecret: string;
  readonly environment: string;
  readonly logger: ModalLogger;
  readonly logLevel: "warn";
  /** How long the SDK may wait, in all, on the server's own retry-after hints (0: never). */
  readonly maxThrottleWaitSecs: number;
  /** Appended after the SDK's own middleware: the outermost one, seeing every control-plane call first. */
  readonly grpcMiddleware: ModalMiddleware[];
}

/** The profile a client settled on (read back to prove nothing ambient got in). */
export interface ModalProfile {
  readonly serverUrl: string;
  readonly tokenId?: string;
  readonly tokenSecret?: string;
  readonly oauthRefreshToken?: string;
  readonly oauthClientId?: string;
  readonly environment?: string;
  readonly imageBuilderVersion?: string;
  readonly sandboxV2: boolean;
}

/** An App: the namespace sandboxes are created in. */
export interface ModalApp {
  readonly appId: string;
}

/** An image reference; `build` resolves it to an image id (once). */
export interface ModalImage {
  readonly imageId: string;
  build(app: ModalApp): Promise<ModalImage>;
}

/** Options of `sandboxes.create` as this adapter sends them: lifetime, tags and workdir always. */
export interface ModalCreateParams {
  /** Sandbox lifetime in ms (whole seconds). Always sent: the SDK's default is 5 minutes. */
  readonly timeoutMs: number;
  readonly idleTimeoutMs?: number;
  readonly workdir: string;
  readonly env: Record<string, string>;
  /** Server-side tags: the ownership marker, the launch key and the caller's labels. */
  readonly tags: Record<string, string>;
  readonly blockNetwork: boolean;
  /** The only CIDR ranges the sandbox may reach (any protocol); never beside `blockNetwork: true`. */
  readonly outboundCidrAllowlist?: string[];
  /** Cores reserved (set aside, not a ceiling); required by the SDK beside `cpuLimit`. */
  readonly cpu?: number;
  /** The hard limit of cores. */
  readonly cpuLimit?: number;
  /** MiB reserved (set aside, not a ceiling); required by the SDK beside `memoryLimitMiB`. */
  readonly memoryMiB?: number;
  /** The hard limit of memory, MiB. */
  readonly memoryLimitMiB?: number;
  /** Ports tunnelled with TLS (`https://` URLs). */
  readonly encryptedPorts?: number[];
  /** Ports tunnelled as plain TCP. */
  readonly unencryptedPorts?: number[];
}

/** Options of `sandboxes.list`: always scoped to the App and filtered by tags on the server. */
export interface ModalListParams {
  readonly appId: string;
  readonly tags: Record<string, string>;
  readonly environment: string;
}

/** A readable output stream of a process (binary mode: `Uint8Array` chunks). */
export interface ModalReadStream {
  getReader(): ReadableStreamDefaultReader<Uint8Array>;
}

/** A process's stdin. */
export interface ModalWriteStream {
  getWriter(): WritableStreamDefaultWriter<Uint8Array>;
}

/** A started exec. */
export interface ModalContainerProcess {
  readonly stdin: ModalWriteStream;
  readonly stdout: ModalReadStream;
  readonly stderr: ModalReadStream;
  /** The exit code; `128 + n` for a process ended by signal `n`. */
  wait(): Promise<number>;
}

/** Options of `sandbox.exec` as this adapter sends them: binary output, piped streams, a server-side timeout. */
export interface ModalExecParams {
  readonly mode: "binary";
  readonly stdout: "pipe";
  readonly stderr: "pipe";
  readonly workdir: string;
  readonly env: Record<string, string>;
  /** Server-side timeout in ms (whole seconds): the process is killed after it. */
  readonly timeoutMs: number;
}

/** What `filesystem.listFiles` and `filesystem.stat` report. */
export interface ModalFileInfo {
  readonly name: string;
  readonly path: string;
  readonly type: "file" | "directory" | "symlink";
  readonly size: number;
  /** The whole `st_mode`. */
  readonly mode: number;
  /** Unix epoch seconds. */
  readonly modifiedTime: number;
}

/** `sandbox.filesystem`: each call execs the SDK's helper inside the sandbox. */
export interface ModalFilesystem {
  writeBytes(data: Uint8Array, remotePath: string): Promise<void>;
  readBytes(remotePath: string): Promise<Uint8Array>;
  listFiles(remotePath: string): Promise<ModalFileInfo[]>;
  stat(remotePath: string): Promise<ModalFileInfo>;
  makeDirectory(remotePath: string, options: { readonly createParents: true }): Promise<void>;
  remove(remotePath: string, options: { readonly recursive: true }): Promise<void>;
}

/** One tunnel to a container port. */
export interface ModalTunnel {
  /** `https://host[:port]`. */
  readonly url: string;
  readonly unencryptedHost?: string | undefined;
  readonly unencryptedPort?: number | undefined;
}

/** A sandbox object (`fromId` makes one without a request). */
export interface ModalSandbox {
  readonly sandboxId: string;
  readonly filesystem: ModalFilesystem;
  exec(command: string[], params: ModalExecParams): Promise<ModalContainerProcess>;
  getTags(): Promise<Record<string, string>>;
  /** `null` while running, else the exit code (137 terminated, 124 timed out). */
  poll(): Promise<number | null>;
  terminate(): Promise<void>;
  tunnels(timeoutMs: number): Promise<Record<number, ModalTunnel>>;
  /** Releases the object's connection; the sandbox keeps running. */
  detach(): void;
}

/** `client.sandboxes`. */
export interface ModalSandboxService {
  create(app: ModalApp, image: ModalImage, params: ModalCreateParams): Promise<ModalSandbox>;
  fromId(sandboxId: string): Promise<ModalSandbox>;
  list(params: ModalListParams): AsyncGenerator<ModalSandbox, void, unknown>;
}

/** A Modal client. */
export interface ModalClient {
  readonly profile: ModalProfile;
  readonly apps: {
    fromName(name: string, params: { readonly environment: string; readonly createIfMissing: true }): Promise<ModalApp>;
  };
  readonly images: {
    fromRegistry(tag: string): ModalImage;
    fromId(imageId: string): Promise<ModalImage>;
  };
  readonly sandboxes: ModalSandboxService;
}

/** The module shape this adapter needs from the `modal` package. */
export interface ModalSdkModule {
  readonly ModalClient: new (params: ModalClientParams) => ModalClient;
}
