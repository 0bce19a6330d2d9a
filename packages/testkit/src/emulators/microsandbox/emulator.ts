/**
 * A local microsandbox cloud (REST control plane and the agent relay on one port) for the real
 * `microsandbox` SDK, on a backend runtime. How to point the SDK at it, what it serves and how it
 * differs from the service, with sources: README.md here.
 *
 * @module
 */

import { randomBytes, randomUUID } from "node:crypto";
import { type EmulatorBackend, type ResolvedBackend, resolveBackend } from "../harness/backend.js";
import { EmulatorFacade } from "../harness/emulator-facade.js";
import { EmulatorServer } from "../harness/http-server.js";
import { SandboxRegistry } from "../harness/sandbox-registry.js";
import type { ProviderEmulator } from "../harness/types.js";
import { registerAgentRelay } from "./agent-relay.js";
import type {
  CreateSandboxInput,
  MicrosandboxAgentOperation,
  MicrosandboxSandbox,
  MicrosandboxSandboxData,
} from "./context.js";
import { registerControlPlane } from "./control-plane.js";
import { replyError } from "./errors.js";
import { loadCbor } from "./libraries.js";
import { MicrosandboxState } from "./state.js";

/** Options of {@link startMicrosandboxEmulator}. */
export interface MicrosandboxEmulatorOptions {
  /** The API key accepted as `Authorization: Bearer <key>`. Default: a random `msb_test_…` key. */
  readonly apiKey?: string;
  /**
   * Runtime (or factory) that runs the sandboxes. Default: `LocalRuntime` from
   * `@sandport/local` in a temporary directory, `isolation: "none"`.
   */
  readonly backend?: EmulatorBackend;
  /**
   * Largest page `GET /v1/sandboxes` returns (the client's `limit`, 20 from
   * the SDK, can only lower it). Default: 3, small so that callers must follow
   * `next_cursor`.
   */
  readonly pageSize?: number;
  /**
   * On a backend without `spawn` only: how long a command waits, after its
   * request, for standard input given up front before it starts with none.
   * Default: 50 ms.
   */
  readonly stdinGraceMs?: number;
}

/** The argument of the SDK's `setDefaultBackend` that selects this emulator. */
export interface MicrosandboxBackendConfig {
  readonly kind: "cloud";
  readonly url: string;
  readonly apiKey: string;
}

/** A running microsandbox emulator. */
export interface MicrosandboxEmulator extends ProviderEmulator {
  /** The accepted API key. */
  readonly apiKey: string;
  /** Base URL of the cloud API (the SDK's `url`); the agent relay is the same origin over `ws://`. */
  readonly apiUrl: string;
  /** The organisation every sandbox belongs to (`org_id`). */
  readonly orgId: string;
  /** `{ kind: "cloud", url, apiKey }`, for `setDefaultBackend`. */
  readonly sdkBackend: MicrosandboxBackendConfig;
  /** Agent operations since start or the last `resetRequests()`, in arrival order. */
  readonly agentOperations: readonly MicrosandboxAgentOperation[];
}

const DEFAULT_PAGE_SIZE = 3;
const DEFAULT_STDIN_GRACE_MS = 50;

/** Start a microsandbox emulator on 127.0.0.1 and an ephemeral port. */
export async function startMicrosandboxEmulator(
  options: MicrosandboxEmulatorOptions = {},
): Promise<MicrosandboxEmulator> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
    throw new RangeError(`pageSize must be an integer from 1 to 100, got ${pageSize}`);
  }
  const stdinGraceMs = options.stdinGraceMs ?? DEFAULT_STDIN_GRACE_MS;
  if (!Number.isFinite(stdinGraceMs) || stdinGraceMs < 0) {
    throw new RangeError(`stdinGraceMs must be >= 0, got ${stdinGraceMs}`);
  }
  const cbor = await loadCbor();
  const backend = await resolveBackend(options.backend);
  let server: EmulatorServer;
  try {
    server = await EmulatorServer.start({
      answerUnknownRoute: (exchange) =>
        replyError(exchange, 501, "not_emulated", `${exchange.method} ${exchange.url.pathname} is not emulated`),
    });
  } catch (error) {
    await backend.dispose();
    throw error;
  }
  const emulator = new MicrosandboxEmulatorImpl(server, backend, {
    apiKey: options.apiKey ?? `msb_test_${randomBytes(20).toString("hex")}`,
    pageSize,
  });
  registerControlPlane(server, emulator.state);
  registerAgentRelay(server, emulator.state, { stdinGraceMs, cbor });
  return emulator;
}

class MicrosandboxEmulatorImpl
  extends EmulatorFacade<EmulatorServer, MicrosandboxSandboxData>
  implements MicrosandboxEmulator
{
  readonly state: MicrosandboxState;

  constructor(server: EmulatorServer, backend: ResolvedBackend, settings: { apiKey: string; pageSize: number }) {
    const registry = new SandboxRegistry<MicrosandboxSandboxData>();
    super(server, backend, registry);
    this.state = new MicrosandboxState({
      apiKey: settings.apiKey,
      orgId: randomUUID(),
      pageSize: settings.pageSize,
      backend: backend.runtime,
      registry,
      log: server.log,
    });
  }

  get apiKey(): string {
    return this.state.apiKey;
  }

  get orgId(): string {
    return this.state.orgId;
  }

  get url(): string {
    return this.server.url;
  }

  get apiUrl(): string {
    return this.server.url;
  }

  get sdkBackend(): MicrosandboxBackendConfig {
    return { kind: "cloud", url: this.apiUrl, apiKey: this.apiKey };
  }

  get agentOperations(): readonly MicrosandboxAgentOperation[] {
    return this.state.agentOperations;
  }

  override resetRequests(): void {
    super.resetRequests();
    this.state.agentOperations.length = 0;
  }

  async seedForeignSandbox(metadata: Record<string, string> = {}): Promise<string> {
    const name = `foreign-${randomBytes(6).toString("hex")}`;
    const input: CreateSandboxInput = {
      name,
      labels: { ...metadata },
      foreign: true,
      spec: {
        image: "alpine",
        vcpus: 1,
        memoryMib: 512,
        env: [],
        workdir: null,
        runtime: {},
        networkEnabled: true,
        ephemeral: false,
        maxDurationSecs: null,
        idleTimeoutSecs: null,
      },
    };
    const sandbox: MicrosandboxSandbox = await this.state.createSandbox(input);
    this.state.startSandbox(sandbox);
    return sandbox.id;
  }

  protected override async beforeServerStops(): Promise<void> {
    this.state.stopping = true;
  }

  protected async shutDown(): Promise<void> {
    await Promise.allSettled(this.registry.all().map((sandbox) => this.state.removeSandbox(sandbox)));
  }
}
