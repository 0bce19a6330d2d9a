/**
 * A local Daytona: the REST API under `/api` and the toolbox proxy under
 * `/toolbox/<sandbox id>` on one 127.0.0.1 port, close enough for the real
 * `@daytonaio/sdk` (0.180 to 0.218) and `@daytona/sdk` (0.216) to run against
 * it. Every sandbox is a workspace on a backend runtime from the port, so
 * commands run and files persist for real.
 *
 * Point the SDK at it with `emulator.sdkOptions` (`apiKey`, `apiUrl`,
 * `target`; all three, so the SDK reads no `DAYTONA_*` variable or `.env`
 * file for them) and, from 0.205 on, `useDeprecatedPolling: true` (see below).
 *
 * What differs from Daytona, on purpose or by necessity:
 * - State changes follow the API: create from a snapshot and start answer
 *   once the sandbox is started (the API waits up to 30 s), a create from an
 *   image answers `creating` and is polled, stop and delete answer at once
 *   (`stopping`, `destroying`) and settle in the background. They settle as
 *   soon as the backend is done (plus `transitionDelayMs`); a call during one is
 *   refused with 400 "Sandbox state change in progress".
 * - No event stream: the socket.io WebSocket (`/api/socket.io/`) is answered
 *   404 and logged in `unknownRoutes`. The SDK (0.205+) then polls, once a
 *   second instead of every 100 ms unless `useDeprecatedPolling: true`.
 * - Paths map `/home/daytona` (and paths relative to it, as the daemon
 *   resolves them) onto the backend workspace; anything else is refused with
 *   400 `INVALID_FILE_PATH`. Command text is not rewritten: a command sees the
 *   backend's workspace as its cwd and `$HOME` (a namespaced `LocalRuntime`
 *   with `workspaceRoot: "/home/daytona"` puts it there).
 * - Commands run with bash where the backend has it, else sh; output reaches
 *   the client as UTF-8 text (non-UTF-8 bytes are replaced); files are
 *   binary-safe. `process/execute` has no timeout unless one is given (the
 *   daemon's rule); the backend still gets a 24 h budget.
 * - Sessions keep their commands' order (one at a time) but run each as its
 *   own process: `cd`, `export` and variables do not carry over.
 * - Stopping kills the sandbox's processes and sessions; files stay.
 * - Resources, `user`, `public`, `target`, snapshot names and the
 *   auto-stop/archive/delete intervals are stored and reported, not enforced
 *   (except `autoDeleteInterval: 0`, which deletes on stop). `networkBlockAll`
 *   is passed to the backend as `network: false`; a backend that cannot honour
 *   it leaves the sandbox in state `error` with the backend's reason.
 * - A toolbox call to a sandbox that is not started is answered 409 by the
 *   "proxy" (what the real proxy answers is not known).
 * - Create fields that cannot be honoured (volumes, secrets, ttlMinutes, kvm,
 *   spot, gpuType, network and domain allow lists, outbound proxy, OTel
 *   override, linked sandbox, autoPauseInterval, image build contexts) are
 *   refused with 400; an unknown list query parameter is refused too.
 * - Session input reaches an async command's stdin (the backend's `spawn`);
 *   preview links reach the backend's `portEndpoint` through a 127.0.0.1
 *   listener per sandbox and port (`preview-proxy.ts`), not Daytona's host names.
 * - Not emulated (answered 404 and logged in `unknownRoutes`): signed preview
 *   URLs, the socket.io event stream, PTYs, code-run and the interpreter, git,
 *   LSP, computer use, file search/find/replace/permissions, signed file URLs,
 *   metrics and telemetry, `/api/config`, snapshots, volumes, secrets, warm
 *   pools, pause/archive/recover/resize/fork, SSH access, `/api/sandbox/paginated`;
 *   a followed log over plain HTTP (`follow=true` without a WebSocket) is
 *   answered 400 and logged too.
 *
 * @module
 */

import { randomBytes, randomUUID } from "node:crypto";
import type { SandboxRuntime } from "@sandport/core";
import { type EmulatorBackend, type ResolvedBackend, resolveBackend } from "../harness/backend.js";
import { EmulatorServer } from "../harness/http-server.js";
import { SandboxRegistry } from "../harness/sandbox-registry.js";
import type { EmulatedSandboxSummary, EmulatorRequestRecord, FaultRule, ProviderEmulator } from "../harness/types.js";
import type { DaytonaCredentials } from "./auth.js";
import type { CreateSandboxInput, DaytonaContext, DaytonaSandbox, DaytonaSandboxData } from "./context.js";
import { registerControlPlane } from "./control-plane.js";
import { errorReplyByPath } from "./errors.js";
import { SandboxLifecycle } from "./lifecycle.js";
import { DAYTONA_HOME } from "./paths.js";
import { PreviewProxies } from "./preview-proxy.js";
import { registerToolboxFiles } from "./toolbox-files.js";
import { registerToolboxProcess } from "./toolbox-process.js";
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
  /** Extra milliseconds before a state change settles, to make transitional states observable. Default: 0. */
  readonly transitionDelayMs?: number;
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
  const backend = await resolveBackend(options.backend, { workspaceRoot: DAYTONA_HOME, sharedProcesses: true });
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
    transitionDelayMs,
  });
  registerControlPlane(server, emulator);
  registerToolboxProcess(server, emulator);
  registerToolboxSessions(server, emulator);
  registerToolboxFiles(server, emulator);
  registerToolboxTransfer(server, emulator);
  return emulator;
}

interface Settings {
  readonly credentials: DaytonaCredentials;
  readonly pageSize: number;
  readonly target: string;
  readonly transitionDelayMs: number;
}

class DaytonaEmulatorImpl implements DaytonaEmulator, DaytonaContext {
  readonly server: EmulatorServer;
  readonly credentials: DaytonaCredentials;
  readonly pageSize: number;
  readonly target: string;
  readonly registry = new SandboxRegistry<DaytonaSandboxData>();
  readonly previews: PreviewProxies;
  readonly #backend: ResolvedBackend;
  readonly #lifecycle: SandboxLifecycle;
  #stopping: Promise<void> | undefined;

  constructor(server: EmulatorServer, backend: ResolvedBackend, settings: Settings) {
    this.server = server;
    this.#backend = backend;
    this.credentials = settings.credentials;
    this.pageSize = settings.pageSize;
    this.target = settings.target;
    this.previews = new PreviewProxies(backend.runtime);
    this.#lifecycle = new SandboxLifecycle({
      backend: backend.runtime,
      registry: this.registry,
      defaultTarget: settings.target,
      transitionDelayMs: settings.transitionDelayMs,
    });
  }

  get backend(): SandboxRuntime {
    return this.#backend.runtime;
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

  get requests(): readonly EmulatorRequestRecord[] {
    return this.server.log.records;
  }

  get unknownRoutes(): readonly string[] {
    return this.server.log.unknownRoutes;
  }

  countRequests(route?: string | RegExp): number {
    return this.server.log.count(route);
  }

  resetRequests(): void {
    this.server.log.reset();
  }

  injectFault(rule: FaultRule): void {
    this.server.faults.add(rule);
  }

  clearFaults(): void {
    this.server.faults.clear();
  }

  liveSandboxes(): EmulatedSandboxSummary[] {
    return this.registry.summaries();
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

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      await this.server.stop();
      await this.previews.closeAll();
      await this.#lifecycle.destroyAll();
      await this.#backend.dispose();
    })();
    return this.#stopping;
  }
}
