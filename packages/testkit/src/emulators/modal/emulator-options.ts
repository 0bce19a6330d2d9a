import type { SandboxRuntime } from "@sandport/core";
import type { EmulatorBackend } from "../harness/backend.js";
import type { ProviderEmulator } from "../harness/types.js";
import type { ModalRequestRecord } from "./request-record.js";

/** Options of `startModalEmulator`. */
export interface ModalEmulatorOptions {
  /** The token id accepted in `x-modal-token-id`. Default: a random `ak-…`. */
  readonly tokenId?: string;
  /** The token secret accepted in `x-modal-token-secret`. Default: a random `as-…`. */
  readonly tokenSecret?: string;
  /**
   * Runtime (or factory) that runs the sandboxes. Default: `LocalRuntime` from
   * `@sandport/local` in a temporary directory, `isolation: "none"`.
   */
  readonly backend?: EmulatorBackend;
  /**
   * Replaces DNS for the default backend's egress proxy, which enforces an
   * outbound allowlist (the conformance suite passes
   * `conformanceEgressResolver`). Ignored with `backend`.
   */
  readonly egressResolver?: (host: string) => Promise<readonly string[]>;
  /** Largest page `SandboxListV2` returns. Default: 3, small so that callers must page. */
  readonly pageSize?: number;
  /** The absolute sandbox directory that maps onto the backend workspace. Default: `/workspace`. */
  readonly workspacePath?: string;
  /** Environments besides `main` (the default one). */
  readonly environments?: readonly string[];
  /** Lifetime of the `x-modal-auth-token` JWT, seconds. Default: 1200. */
  readonly authTokenTtlSeconds?: number;
  /** Lifetime of command-router JWTs, seconds (the SDK refreshes one it is refused with). Default: 3600. */
  readonly routerTokenTtlSeconds?: number;
}

/** The `ModalClient` parameters that go with an emulator (credentials; the server comes from the environment). */
export interface ModalConnectionOptions {
  readonly tokenId: string;
  readonly tokenSecret: string;
  readonly environment: "main";
}

/** A running Modal emulator. */
export interface ModalEmulator extends ProviderEmulator {
  /** Every call received, with its gRPC status; see {@link ModalRequestRecord}. */
  readonly requests: readonly ModalRequestRecord[];
  /** The control plane, `http://127.0.0.1:<port>`: the value for `MODAL_SERVER_URL`. */
  readonly url: string;
  /** The command router address handed to the SDK (`https://127.0.0.1:<port>`, dialled in plaintext for a localhost server). */
  readonly commandRouterUrl: string;
  readonly tokenId: string;
  readonly tokenSecret: string;
  /** The sandbox directory that maps onto the backend workspace. */
  readonly workspacePath: string;
  /** The runtime the sandboxes run on (whose limits stand for Modal's hard limits). */
  readonly backend: SandboxRuntime;
  /** Version of the `modal` package the wire definitions were read from. */
  readonly sdkVersion: string;
  /** `{ tokenId, tokenSecret, environment }` for `new ModalClient(...)`. */
  readonly sdkOptions: ModalConnectionOptions;
  /** What must be in `process.env` while a `ModalClient` is constructed: `MODAL_SERVER_URL`, `MODAL_SANDBOX_V2`. */
  readonly sdkEnvironment: Readonly<Record<string, string>>;
  /** Run `create` (a `new ModalClient(...)`) with {@link sdkEnvironment} set, and restore the environment after. */
  construct<T>(create: () => T): T;
  /** Create a sandbox someone else owns, in app `appName` (default `"foreign"`) of `main`, tagged with `metadata`. */
  seedForeignSandbox(metadata?: Record<string, string>, options?: { readonly appName?: string }): Promise<string>;
}
