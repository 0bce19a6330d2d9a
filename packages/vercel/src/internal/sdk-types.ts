/**
 * The slice of the `@vercel/sandbox` SDK this adapter uses, described structurally.
 *
 * Nothing outside `sdk.ts` imports the SDK at runtime; everything else talks to
 * these interfaces, so a test can hand in a fake and a missing SDK only fails
 * at first use. `sdk-types.test.ts` checks at compile time that the real SDK
 * (3.5 and 3.0) still satisfies every member declared here.
 *
 * @module
 */

import type { Writable } from "node:stream";

/**
 * What every static SDK call carries. With all three credentials present the
 * SDK never looks for ambient ones (`VERCEL_OIDC_TOKEN`, the CLI's
 * `auth.json`, a device login); `fetch` is the only way to reach the API.
 */
export type VercelConnection = {
  /** Access token, sent as `Authorization: Bearer`. Never JWT-shaped (see `options.ts`). */
  readonly token: string;
  /** Sent as `?teamId=` on every request. */
  readonly teamId: string;
  /** The project every sandbox belongs to. */
  readonly projectId: string;
  /** The fetch every request goes through (the SDK's base URL is fixed). */
  readonly fetch: typeof globalThis.fetch;
  /** Cancels the call, the SDK's own retries and its waits for `Retry-After` included. */
  readonly signal?: AbortSignal;
};

/**
 * A network policy as this adapter sends it: everything, nothing, or the
 * SDK's user-defined form, which denies everything but the listed domains
 * (`allow`) and address ranges (`subnets.allow`).
 */
export type VercelNetworkPolicy =
  | "allow-all"
  | "deny-all"
  | { readonly allow: string[]; readonly subnets?: { readonly allow: string[] } };

/** Options of `Sandbox.create` as this adapter sends them: every field explicit. */
export type VercelCreateParams = VercelConnection & {
  /** The sandbox's name: the ownership prefix and the launch key. */
  readonly name: string;
  /** Container image; absent: Vercel's default image. */
  readonly image?: string;
  /** Ports reachable through `domain(port)` (at most 15). */
  readonly ports: number[];
  /** Session lifetime in ms. Always sent. */
  readonly timeout: number;
  readonly resources: { readonly vcpus: number };
  /** Environment of every command. */
  readonly env: Record<string, string>;
  /** At most 5 tags: the caller's labels and the ownership tag. */
  readonly tags: Record<string, string>;
  readonly networkPolicy: VercelNetworkPolicy;
  /** Always `true`: the filesystem survives `stop`. */
  readonly persistent: boolean;
  /** Region; sent only when configured (3.0 does not send it at all: see `launch.ts`). */
  readonly region?: string;
};

/** Options of `Sandbox.get`. */
export type VercelGetParams = VercelConnection & {
  readonly name: string;
  /** `true` starts a new session of a stopped sandbox (billed); absent or `false` never does. */
  readonly resume?: boolean;
};

/** Options of `Sandbox.list`: one page. */
export type VercelListParams = VercelConnection & {
  /** Server-side filter on the name's start; the API refuses it unless `sortBy` is `"name"`. */
  readonly namePrefix?: string;
  /** The order of the list; `"name"` is required with `namePrefix`. */
  readonly sortBy?: "createdAt" | "name" | "statusUpdatedAt";
  /** Server-side filter on one tag: a single `{ key: value }`. */
  readonly tags?: Record<string, string>;
  /** Page size, 1 to 50. */
  readonly limit?: number;
  /** `pagination.next` of the previous page. */
  readonly cursor?: string;
};

/** One sandbox as the list reports it. */
export interface VercelSandboxRow {
  readonly name: string;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly status: string;
  readonly tags?: Record<string, string> | undefined;
  /** vCPUs allocated, as the API reports them. */
  readonly vcpus?: number | undefined;
  /** Memory allocated, in MB (MiB: 2048 per vCPU). */
  readonly memory?: number | undefined;
}

/** One page of `Sandbox.list`. */
export interface VercelSandboxPage {
  readonly sandboxes: readonly VercelSandboxRow[];
  readonly pagination: { readonly next: string | null };
}

/** Per-call options of instance methods. */
export interface VercelCallOptions {
  readonly signal?: AbortSignal;
}

/** Options of `runCommand`: argv, cwd and env go in their own fields, never spliced into a string. */
export interface VercelRunParams extends VercelCallOptions {
  readonly cmd: string;
  readonly args: string[];
  /** Absolute working directory. */
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Command timeout in ms; always sent. */
  readonly timeoutMs: number;
}

/** `runCommand` in its waited form: output is written to the sinks as it arrives. */
export interface VercelWaitedRunParams extends VercelRunParams {
  /** Receives each stdout log line's text as it arrives. */
  readonly stdout: Writable;
  /** Receives each stderr log line's text as it arrives. */
  readonly stderr: Writable;
}

/** One line of a command's log stream. */
export interface VercelLogLine {
  readonly stream: "stdout" | "stderr";
  readonly data: string;
}

/** The log stream of a command: replayed from its first line, then live until it ends. */
export interface VercelLogStream extends AsyncIterable<VercelLogLine> {
  /** Stops the stream. */
  close(): void;
}

/** A command, running or ended. */
export interface VercelCommand {
  readonly cmdId: string;
  /** `null` while it runs. */
  readonly exitCode: number | null;
  /** Epoch ms. */
  readonly startedAt: number;
  /** Once it has ended, where Vercel reports it. */
  readonly durationMs?: number | undefined;
  logs(options?: VercelCallOptions): VercelLogStream;
}

/** A command that has ended. */
export interface VercelCommandFinished {
  readonly exitCode: number | null;
  readonly durationMs?: number | undefined;
}

/** One file of a batched `writeFiles` (a tar.gz upload). */
export interface VercelFileEntry {
  /** Absolute sandbox path. */
  readonly path: string;
  readonly content: Uint8Array;
  readonly mode?: number;
}

/** A sandbox instance: bound to the connection it was created or fetched with. */
export interface VercelSandbox {
  readonly name: string;
  readonly createdAt: Date;
  readonly region: string | undefined;
  /** vCPUs allocated, from the create's answer. */
  readonly vcpus?: number | undefined;
  /** Memory allocated in MB (MiB), from the create's answer. */
  readonly memory?: number | undefined;
  runCommand(params: VercelRunParams & { readonly detached: true }): Promise<VercelCommand>;
  runCommand(params: VercelWaitedRunParams): Promise<VercelCommandFinished>;
  getCommand(cmdId: string, options?: VercelCallOptions): Promise<VercelCommand>;
  writeFiles(files: VercelFileEntry[], options?: VercelCallOptions): Promise<void>;
  /** Resolves `null` when the file does not exist. */
  readFileToBuffer(file: { readonly path: string }, options?: VercelCallOptions): Promise<Uint8Array | null>;
  /** One directory; its parent must exist. */
  mkDir(path: string, options?: VercelCallOptions): Promise<void>;
  /** `https://<subdomain>.vercel.run` of a port declared at create; throws for any other. */
  domain(port: number): string;
  /** Ends the current session; a persistent sandbox keeps its files. */
  stop(options?: VercelCallOptions): Promise<unknown>;
  /** Deletes the sandbox (3.0 ignores `deleteOrphanSnapshots`). */
  delete(options?: VercelCallOptions & { readonly deleteOrphanSnapshots?: boolean }): Promise<void>;
}

/** The static side of the SDK's `Sandbox` class. */
export interface VercelSandboxClass {
  create(params: VercelCreateParams): Promise<VercelSandbox>;
  get(params: VercelGetParams): Promise<VercelSandbox>;
  list(params: VercelListParams): Promise<VercelSandboxPage>;
}

/** The module shape this adapter needs from `@vercel/sandbox`. */
export interface VercelSdkModule {
  readonly Sandbox: VercelSandboxClass;
  /**
   * Exported by the versions whose `Sandbox.create` sends `region` (3.5 does;
   * 3.0 neither exports it nor sends a region).
   */
  readonly DEFAULT_SANDBOX_REGION?: string;
}
