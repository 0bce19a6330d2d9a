/**
 * A local Modal: the control-plane gRPC API (`modal.client.ModalClient`) and
 * the task command router (`modal.task_command_router.TaskCommandRouter`),
 * each on its own 127.0.0.1 port, close enough for the real `modal` SDK
 * (0.11.x, the Modal Labs one) to run against it. Every sandbox is a
 * workspace on a backend runtime from the port, so execs run and files
 * persist for real. The protobuf definitions are read from the installed SDK
 * at run time (see `wire-definitions.ts`); `@grpc/grpc-js` serves them.
 *
 * Point the SDK at it: `MODAL_SERVER_URL` must be `emulator.url` (plus
 * `MODAL_SANDBOX_V2` left on) while `new ModalClient(...)` runs, since the SDK
 * takes its server only from the environment or `~/.modal.toml` (its
 * `endpoint` option is ignored); `emulator.sdkEnvironment` holds the
 * variables and `emulator.construct(() => new ModalClient({...emulator.sdkOptions}))`
 * sets them just for the construction (with the tokens and environment passed
 * explicitly, that overrides everything `~/.modal.toml` says that matters; the
 * file is still parsed once, when `modal` is first imported, unless
 * `MODAL_CONFIG_PATH` names another file by then).
 *
 * Emulated (what the SDK calls, per operation):
 * - auth: `AuthTokenGet`, then every call with `x-modal-token-id`/`-secret`
 *   and the issued `x-modal-auth-token`; the router with `authorization: Bearer`.
 * - `apps.fromName`: `AppGetOrCreate`; `images.fromRegistry(...).build`:
 *   `EnvironmentGetOrCreate` (once per client), `ImageGetOrCreate` (built at
 *   once); `secrets.fromName/fromObject`: `SecretGetOrCreate`.
 * - `sandboxes.create`: `SandboxCreateV2` (timeout, idle timeout, workdir,
 *   env and secrets, tags, name, `blockNetwork`, cpu, memory);
 *   `fromId`: nothing until used, then `SandboxGetTaskIdV2` and
 *   `SandboxGetCommandRouterAccess`; `fromName`: `SandboxGetFromNameV2`
 *   (and the V1 `SandboxGetFromName` the SDK falls back to);
 *   `list`: `SandboxListV2`, pages of `pageSize` (default 3) newest first;
 *   `setTags`/`getTags`: `SandboxTagsSetV2`/`SandboxTagsGetV2`;
 *   `wait`/`poll`: `SandboxWaitV2`; `terminate`: `SandboxTerminateV2`.
 * - `exec`: `TaskExecStart`, `TaskExecStdioRead` per stream (resumable at an
 *   offset), `TaskExecWait` / `TaskExecPoll`, argv, workdir, env, secrets,
 *   timeout, stdout/stderr piped or ignored; stdin through
 *   `TaskExecStdinWrite` / `TaskExecStdinWriteStream` (resumable at an offset,
 *   `TaskExecStdinStatus`) until end-of-file, forwarded to the command as it
 *   runs (the backend's `spawn`).
 * - `tunnels`: `SandboxGetTunnelsV2` for the ports opened at create
 *   (`encryptedPorts`, `unencryptedPorts`, `h2Ports`), each served through the
 *   backend's `portEndpoint` (see `tunnels.ts`).
 * - `filesystem.*` except `watch`: execs of `modal-sandbox-fs-tools`,
 *   answered from the backend's file methods (see `fs-tools.ts`).
 *
 * What differs from Modal, on purpose or by necessity:
 * - Sandbox paths map one directory (`workspacePath`, default `/workspace`)
 *   onto the backend workspace; other absolute paths are refused (workdir:
 *   `INVALID_ARGUMENT`; filesystem calls: `PermissionDenied`). Command text is
 *   not rewritten: a command sees the backend's workspace as its cwd and
 *   `$HOME`: with the default backend a host directory, so a literal
 *   `/workspace/...` inside a script does not exist (a namespaced `LocalRuntime`
 *   with `workspaceRoot` at `workspacePath` puts it there). A sandbox without `workdir` starts execs in the
 *   workspace (Modal: the image's `WORKDIR`).
 * - Images are never pulled or built: every sandbox runs on the backend as is.
 * - Exec output reaches the client as the bytes the backend reports: exact
 *   with the default backend (`LocalRuntime`, whose `binaryOutput` is true),
 *   the UTF-8 of its text with a backend that streams text only. Files are
 *   binary-safe. A killed or timed-out exec reports SIGKILL (exit 137).
 * - With a backend that has no `spawn`, a command's stdin is closed from the
 *   start (an end-of-file is accepted, bytes are refused); with one that has
 *   no `portEndpoint`, `openPorts` is refused (see `interactive.ts`).
 * - Tunnels terminate no TLS: every tunnel address speaks plain HTTP.
 * - Terminated sandboxes report exit 137, timed-out (and idle) ones 124; their
 *   backend workspace is destroyed at once, their record kept for the
 *   emulator's life. Idle means no exec running and no router call.
 * - Exec starts are idempotent per exec id; other retried calls are not
 *   deduplicated by `x-idempotency-key` (a create whose answer was lost and
 *   that the SDK retries creates two sandboxes).
 * - `list` without an `appId` lists the environment (the SDK warns).
 * - File entries report owner and group `root` and no symlink target.
 * - Request records: `status` is the HTTP status naming the gRPC outcome
 *   (200, 404, 429, 503...), `grpcStatus` the gRPC code; injected status
 *   faults map back the same way (429 with `retryAfterSeconds` carries
 *   Modal's `RPCRetryPolicy`, so the SDK waits and retries by itself).
 *
 * Not emulated (`UNIMPLEMENTED`, logged in `unknownRoutes`): V1 sandboxes and
 * GPUs, sandbox entrypoint commands and their stdio, PTYs, connect tokens,
 * snapshots, volumes and
 * cloud buckets, proxies, readiness probes, custom domains, outbound
 * allowlists and policies, sidecars, logs, `filesystem.watch`, functions,
 * queues, dicts, and every other control-plane method.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import type { SandboxRuntime } from "@sandport/core";
import { type ResolvedBackend, resolveBackend } from "../harness/backend.js";
import { SandboxRegistry } from "../harness/sandbox-registry.js";
import type { EmulatedSandboxSummary, FaultRule } from "../harness/types.js";
import { ModalAuth } from "./auth.js";
import { registerCommandRouter } from "./command-router.js";
import type { CreateSandboxInput, ModalContext, ModalListener } from "./context.js";
import { registerControlPlane } from "./control-plane.js";
import type { ModalConnectionOptions, ModalEmulator, ModalEmulatorOptions } from "./emulator-options.js";
import { loadGrpc, retryDetailsEncoder } from "./grpc-loader.js";
import { GrpcEmulatorServer, type MethodHandler } from "./grpc-server.js";
import { SandboxPaths } from "./paths.js";
import type { ModalRequestRecord } from "./request-record.js";
import type { EmulatedSandbox, SandboxEnd } from "./sandbox.js";
import { DESTROY_TIMEOUT_MS, launchSandbox } from "./sandbox-launch.js";
import { registerSandboxLifecycle } from "./sandbox-lifecycle.js";
import { registerSandboxList } from "./sandbox-list.js";
import { ModalState } from "./state.js";
import { registerTunnels } from "./tunnels.js";
import { loadModalWire, type ModalWire } from "./wire-definitions.js";

export type { ModalConnectionOptions, ModalEmulator, ModalEmulatorOptions };

const DEFAULT_PAGE_SIZE = 3;

/** Start a Modal emulator on 127.0.0.1 (two ephemeral ports). */
export async function startModalEmulator(options: ModalEmulatorOptions = {}): Promise<ModalEmulator> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) {
    throw new RangeError(`pageSize must be an integer from 1 to 1000, got ${pageSize}`);
  }
  const workspacePath = options.workspacePath ?? "/workspace";
  if (!/^\/[^\0]*[^/]$/.test(workspacePath))
    throw new RangeError(`workspacePath must be an absolute directory, got ${workspacePath}`);
  for (const [name, value] of [
    ["authTokenTtlSeconds", options.authTokenTtlSeconds],
    ["routerTokenTtlSeconds", options.routerTokenTtlSeconds],
  ] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0))
      throw new RangeError(`${name} must be positive, got ${value}`);
  }
  const [wire, grpc] = await Promise.all([loadModalWire(), loadGrpc()]);
  const auth = new ModalAuth({
    tokenId: options.tokenId ?? `ak-${randomBytes(11).toString("hex")}`,
    tokenSecret: options.tokenSecret ?? `as-${randomBytes(11).toString("hex")}`,
    authTokenTtlSeconds: options.authTokenTtlSeconds ?? 1200,
    routerTokenTtlSeconds: options.routerTokenTtlSeconds ?? 3600,
  });
  const backend = await resolveBackend(options.backend, { workspaceRoot: workspacePath, sharedProcesses: true });
  let server: GrpcEmulatorServer<ModalListener>;
  try {
    server = await GrpcEmulatorServer.start<ModalListener>(
      grpc,
      [
        { name: "controlPlane", service: wire.controlPlane, guard: (call) => auth.checkControlPlane(call) },
        { name: "commandRouter", service: wire.commandRouter, guard: (call) => auth.checkRouter(call) },
      ],
      retryDetailsEncoder(wire),
    );
  } catch (error) {
    await backend.dispose();
    throw error;
  }
  const emulator = new ModalEmulatorImpl(server, backend, wire, auth, {
    pageSize,
    paths: new SandboxPaths(workspacePath),
    environments: options.environments ?? [],
  });
  registerControlPlane(emulator);
  registerSandboxLifecycle(emulator);
  registerSandboxList(emulator);
  registerCommandRouter(emulator);
  registerTunnels(emulator);
  return emulator;
}

class ModalEmulatorImpl implements ModalEmulator, ModalContext {
  readonly wire: ModalWire;
  readonly auth: ModalAuth;
  readonly paths: SandboxPaths;
  readonly state: ModalState;
  readonly pageSize: number;
  readonly registry = new SandboxRegistry<EmulatedSandbox>();
  readonly #server: GrpcEmulatorServer<ModalListener>;
  readonly #backend: ResolvedBackend;
  readonly #ending = new Set<Promise<void>>();
  readonly #launching = new Set<Promise<EmulatedSandbox>>();
  #stopping: Promise<void> | undefined;

  constructor(
    server: GrpcEmulatorServer<ModalListener>,
    backend: ResolvedBackend,
    wire: ModalWire,
    auth: ModalAuth,
    settings: { pageSize: number; paths: SandboxPaths; environments: readonly string[] },
  ) {
    this.#server = server;
    this.#backend = backend;
    this.wire = wire;
    this.auth = auth;
    this.pageSize = settings.pageSize;
    this.paths = settings.paths;
    this.state = new ModalState(settings.environments);
  }

  get backend(): SandboxRuntime {
    return this.#backend.runtime;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#server.port("controlPlane")}`;
  }

  get commandRouterUrl(): string {
    return `https://127.0.0.1:${this.#server.port("commandRouter")}`;
  }

  get tokenId(): string {
    return this.auth.settings.tokenId;
  }

  get tokenSecret(): string {
    return this.auth.settings.tokenSecret;
  }

  get workspacePath(): string {
    return this.paths.root;
  }

  get sdkVersion(): string {
    return this.wire.sdkVersion;
  }

  get sdkOptions(): ModalConnectionOptions {
    return { tokenId: this.tokenId, tokenSecret: this.tokenSecret, environment: "main" };
  }

  get sdkEnvironment(): Readonly<Record<string, string>> {
    return { MODAL_SERVER_URL: this.url, MODAL_SANDBOX_V2: "true" };
  }

  construct<T>(create: () => T): T {
    const saved = Object.keys(this.sdkEnvironment).map((name) => [name, process.env[name]] as const);
    Object.assign(process.env, this.sdkEnvironment);
    try {
      return create();
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  }

  get requests(): readonly ModalRequestRecord[] {
    return this.#server.log.records as unknown as readonly ModalRequestRecord[];
  }

  get unknownRoutes(): readonly string[] {
    return this.#server.log.unknownRoutes;
  }

  countRequests(route?: string | RegExp): number {
    return this.#server.log.count(route);
  }

  resetRequests(): void {
    this.#server.log.reset();
  }

  injectFault(rule: FaultRule): void {
    this.#server.faults.add(rule);
  }

  clearFaults(): void {
    this.#server.faults.clear();
  }

  liveSandboxes(): EmulatedSandboxSummary[] {
    return this.registry.summaries();
  }

  implement(listener: ModalListener, method: string, handler: MethodHandler): void {
    const service = listener === "controlPlane" ? this.wire.controlPlane : this.wire.commandRouter;
    this.#server.implement(listener, service, method, handler);
  }

  logNotEmulated(route: string, feature: string): void {
    this.#server.logNotEmulated(route, feature);
  }

  async seedForeignSandbox(
    metadata: Record<string, string> = {},
    options: { readonly appName?: string } = {},
  ): Promise<string> {
    const app = this.state.app("main", options.appName ?? "foreign", true);
    const image = { id: `im-${randomBytes(11).toString("hex")}`, definition: "foreign" };
    this.state.images.set(image.id, image);
    const sandbox = await this.createSandbox({
      appId: app.id,
      environment: app.environment,
      name: undefined,
      imageId: image.id,
      env: {},
      workdir: "",
      timeoutSecs: 3600,
      idleTimeoutSecs: undefined,
      tags: { ...metadata },
      network: undefined,
      cpus: undefined,
      memoryMiB: undefined,
      ports: [],
      foreign: true,
    });
    return sandbox.settings.id;
  }

  async createSandbox(input: CreateSandboxInput): Promise<EmulatedSandbox> {
    if (this.#stopping) throw new Error("the emulator is stopping");
    const launching = launchSandbox(this.backend, this.state, input);
    this.#launching.add(launching);
    let sandbox: EmulatedSandbox;
    try {
      sandbox = await launching;
    } finally {
      this.#launching.delete(launching);
    }
    if (this.#stopping) {
      await this.backend.destroy(sandbox.handle, { timeoutMs: DESTROY_TIMEOUT_MS }).catch(() => undefined);
      throw new Error("the emulator is stopping");
    }
    this.state.addSandbox(sandbox);
    this.registry.add({
      id: sandbox.settings.id,
      metadata: { ...input.tags },
      foreign: input.foreign,
      state: "running",
      createdAt: Math.round(sandbox.settings.createdAt * 1000),
      data: sandbox,
    });
    sandbox.arm((ended, reason) => void this.endSandbox(ended, "GENERIC_STATUS_TIMEOUT", reason));
    return sandbox;
  }

  endSandbox(sandbox: EmulatedSandbox, status: SandboxEnd, reason: string): Promise<void> {
    if (!sandbox.running) return Promise.resolve();
    const finished = sandbox.finish(status, reason);
    this.registry.delete(sandbox.settings.id);
    const ending = (async () => {
      await finished;
      await this.backend.destroy(sandbox.handle, { timeoutMs: DESTROY_TIMEOUT_MS }).catch(() => undefined);
    })();
    this.#ending.add(ending);
    void ending.finally(() => this.#ending.delete(ending));
    return ending;
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      await this.#server.stop();
      // A create still launching finds the emulator stopping and destroys what it launched.
      await Promise.allSettled([...this.#launching]);
      for (const { data } of this.registry.all())
        void this.endSandbox(data, "GENERIC_STATUS_TERMINATED", "the emulator stopped");
      await Promise.allSettled([...this.#ending]);
      await this.#backend.dispose();
    })();
    return this.#stopping;
  }
}
