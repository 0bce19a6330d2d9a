/**
 * A local Daytona (REST API and toolbox proxy on one port) for the real Daytona SDKs, on a backend
 * runtime. How to point the SDK at it, what it serves and how it differs from Daytona, with sources:
 * README.md here.
 *
 * @module
 */

import { randomBytes, randomUUID } from "node:crypto";
import { type EmulatorBackend, type ResolvedBackend, resolveBackend } from "../harness/backend.js";
import { EmulatorFacade } from "../harness/emulator-facade.js";
import { EmulatorServer } from "../harness/http-server.js";
import { SandboxRegistry } from "../harness/sandbox-registry.js";
import type { ProviderEmulator } from "../harness/types.js";
import type { DaytonaCredentials } from "./auth.js";
import type {
  CreateSandboxInput,
  DaytonaContext,
  DaytonaSandbox,
  DaytonaSandboxClass,
  DaytonaSandboxData,
} from "./context.js";
import { registerControlPlane } from "./control-plane.js";
import { errorReplyByPath } from "./errors.js";
import { SandboxLifecycle } from "./lifecycle.js";
import { DAYTONA_HOME } from "./paths.js";
import { PreviewProxies } from "./preview-proxy.js";
import { SnapshotTable } from "./snapshot-table.js";
import { registerToolboxFiles } from "./toolbox-files.js";
import { registerToolboxProcess } from "./toolbox-process.js";
import { registerToolboxPty } from "./toolbox-pty.js";
import { registerToolboxSessions } from "./toolbox-sessions.js";
import { registerToolboxTransfer } from "./toolbox-transfer.js";

/** Options of {@link startDaytonaEmulator}. */
export interface DaytonaEmulatorOptions {
  /** The API key accepted as `Authorization: Bearer <key>`. Default: a random `dtn_…` key. */
  readonly apiKey?: string;
  /** A JWT also accepted, only together with `X-Daytona-Organization-ID: <organizationId>`. Default: none. */
  readonly jwtToken?: string;
  /** The organization every sandbox belongs to. Default: a random UUID. */
  readonly organizationId?: string;
  /**
   * Runtime (or factory) that runs the sandboxes. Default: `LocalRuntime` from
   * `@sandport/local` in a temporary directory, `isolation: "none"`.
   */
  readonly backend?: EmulatorBackend;
  /** Largest list page (a client's `limit` can only lower it). Default: 3, small so callers must follow `nextCursor`. */
  readonly pageSize?: number;
  /** Target (region) of sandboxes created without one, and the one in `sdkOptions`. Default: `"us"`. */
  readonly target?: string;
  /**
   * The class every created sandbox reports (Daytona takes it from the
   * snapshot). Only a `linux-vm` sandbox can be forked, as on Daytona.
   * Default: `"container"`, the class of Daytona's default snapshot.
   */
  readonly sandboxClass?: DaytonaSandboxClass;
  /** Extra milliseconds before a state change settles, to make transitional states observable. Default: 0. */
  readonly transitionDelayMs?: number;
  /**
   * Replaces DNS for the default backend's egress proxy, which enforces
   * `networkAllowList` and `domainAllowList` (the conformance suite passes
   * `conformanceEgressResolver`). Ignored with `backend`.
   */
  readonly egressResolver?: (host: string) => Promise<readonly string[]>;
}

/** The connection options that point the Daytona SDK at an emulator, every field explicit. */
export interface DaytonaConnectionOptions {
  readonly apiKey: string;
  readonly apiUrl: string;
  readonly target: string;
}

/** A running Daytona emulator. */
export interface DaytonaEmulator extends ProviderEmulator {
  /** The accepted API key. */
  readonly apiKey: string;
  /** The organization of every sandbox. */
  readonly organizationId: string;
  /** API base URL (the SDK's `apiUrl`): `<url>/api`. */
  readonly apiUrl: string;
  /** What sandboxes report as `toolboxProxyUrl`: `<url>/toolbox`. */
  readonly toolboxProxyUrl: string;
  /** The default target. */
  readonly target: string;
  /** `{ apiKey, apiUrl, target }`, ready to spread into `new Daytona(...)`. */
  readonly sdkOptions: DaytonaConnectionOptions;
}

const DEFAULT_PAGE_SIZE = 3;
const DEFAULT_TARGET = "us";

/** Start a Daytona emulator on 127.0.0.1 and an ephemeral port. */
export async function startDaytonaEmulator(options: DaytonaEmulatorOptions = {}): Promise<DaytonaEmulator> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 200) {
    throw new RangeError(`pageSize must be an integer from 1 to 200, got ${pageSize}`);
  }
  const transitionDelayMs = options.transitionDelayMs ?? 0;
  if (!Number.isInteger(transitionDelayMs) || transitionDelayMs < 0) {
    throw new RangeError(`transitionDelayMs must be a non-negative integer, got ${transitionDelayMs}`);
  }
  const sandboxClass = options.sandboxClass ?? "container";
  if (sandboxClass !== "container" && sandboxClass !== "linux-vm") {
    throw new RangeError(`sandboxClass must be "container" or "linux-vm", got ${String(sandboxClass)}`);
  }
  const backend = await resolveBackend(options.backend, {
    workspaceRoot: DAYTONA_HOME,
    sharedProcesses: true,
    ...(options.egressResolver === undefined ? {} : { egressResolver: options.egressResolver }),
  });
  let server: EmulatorServer;
  try {
    server = await EmulatorServer.start({ errorReply: errorReplyByPath });
  } catch (error) {
    await backend.dispose();
    throw error;
  }
  const emulator = new DaytonaEmulatorImpl(server, backend, {
    credentials: {
      apiKey: options.apiKey ?? `dtn_${randomBytes(24).toString("hex")}`,
      jwtToken: options.jwtToken,
      organizationId: options.organizationId ?? randomUUID(),
    },
    pageSize,
    target: options.target ?? DEFAULT_TARGET,
    sandboxClass,
    transitionDelayMs,
  });
  registerControlPlane(server, emulator);
  registerToolboxProcess(server, emulator);
  registerToolboxSessions(server, emulator);
  registerToolboxPty(server, emulator);
  registerToolboxFiles(server, emulator);
  registerToolboxTransfer(server, emulator);
  return emulator;
}

interface Settings {
  readonly credentials: DaytonaCredentials;
  readonly pageSize: number;
  readonly target: string;
  readonly sandboxClass: DaytonaSandboxClass;
  readonly transitionDelayMs: number;
}

class DaytonaEmulatorImpl
  extends EmulatorFacade<EmulatorServer, DaytonaSandboxData>
  implements DaytonaEmulator, DaytonaContext
{
  readonly credentials: DaytonaCredentials;
  readonly pageSize: number;
  readonly target: string;
  readonly previews: PreviewProxies;
  readonly snapshots = new SnapshotTable(() => this.backend);
  readonly #lifecycle: SandboxLifecycle;

  constructor(server: EmulatorServer, backend: ResolvedBackend, settings: Settings) {
    super(server, backend, new SandboxRegistry<DaytonaSandboxData>());
    this.credentials = settings.credentials;
    this.pageSize = settings.pageSize;
    this.target = settings.target;
    this.previews = new PreviewProxies(backend.runtime);
    this.#lifecycle = new SandboxLifecycle({
      backend: backend.runtime,
      registry: this.registry,
      defaultTarget: settings.target,
      sandboxClass: settings.sandboxClass,
      transitionDelayMs: settings.transitionDelayMs,
    });
  }

  /** The HTTP server, which the route modules register on. */
  override get server(): EmulatorServer {
    return super.server;
  }

  get apiKey(): string {
    return this.credentials.apiKey;
  }

  get organizationId(): string {
    return this.credentials.organizationId;
  }

  get defaultTarget(): string {
    return this.target;
  }

  get url(): string {
    return this.server.url;
  }

  get apiUrl(): string {
    return `${this.server.url}/api`;
  }

  get toolboxProxyUrl(): string {
    return `${this.server.url}/toolbox`;
  }

  get sdkOptions(): DaytonaConnectionOptions {
    return { apiKey: this.apiKey, apiUrl: this.apiUrl, target: this.target };
  }

  async seedForeignSandbox(metadata: Record<string, string> = {}): Promise<string> {
    const sandbox = this.createSandbox({
      name: undefined,
      snapshot: undefined,
      buildInfo: undefined,
      user: undefined,
      env: {},
      labels: { ...metadata },
      public: false,
      networkBlockAll: false,
      networkAllowList: undefined,
      domainAllowList: undefined,
      target: undefined,
      resources: {},
      autoStopInterval: undefined,
      autoArchiveInterval: undefined,
      autoDeleteInterval: undefined,
      foreign: true,
    });
    await sandbox.data.transition;
    return sandbox.id;
  }

  find(idOrName: string): DaytonaSandbox | undefined {
    return this.registry.get(idOrName) ?? this.registry.all().find((sandbox) => sandbox.data.name === idOrName);
  }

  createSandbox(input: CreateSandboxInput): DaytonaSandbox {
    return this.#lifecycle.create(input);
  }

  forkSandbox(source: DaytonaSandbox, name: string | undefined): DaytonaSandbox {
    return this.#lifecycle.fork(source, name);
  }

  snapshotSandbox(sandbox: DaytonaSandbox, name: string): void {
    this.#lifecycle.snapshot(sandbox, name, this.snapshots);
  }

  startSandbox(sandbox: DaytonaSandbox): void {
    this.#lifecycle.start(sandbox);
  }

  stopSandbox(sandbox: DaytonaSandbox): void {
    this.#lifecycle.stop(sandbox);
  }

  deleteSandbox(sandbox: DaytonaSandbox): void {
    this.#lifecycle.delete(sandbox);
    void this.previews.close(sandbox.id);
  }

  protected async shutDown(): Promise<void> {
    await this.previews.closeAll();
    await this.#lifecycle.destroyAll();
    await this.snapshots.clear();
  }
}
