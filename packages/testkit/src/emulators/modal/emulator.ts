/**
 * A local Modal (control-plane gRPC API and task command router, two ports) for the real `modal` SDK,
 * on a backend runtime. How to point the SDK at it, what it serves and how it differs from Modal,
 * with sources: README.md here.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { destroyBackendSandbox, type ResolvedBackend, resolveBackend } from "../harness/backend.js";
import { EmulatorFacade } from "../harness/emulator-facade.js";
import { PortListeners } from "../harness/port-listeners.js";
import { SandboxRegistry } from "../harness/sandbox-registry.js";
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
import { dropSnapshotImages, registerSnapshotImages } from "./snapshot-images.js";
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
  const backend = await resolveBackend(options.backend, {
    workspaceRoot: workspacePath,
    sharedProcesses: true,
    ...(options.egressResolver === undefined ? {} : { egressResolver: options.egressResolver }),
  });
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
  registerSnapshotImages(emulator);
  registerTunnels(emulator);
  return emulator;
}

class ModalEmulatorImpl
  extends EmulatorFacade<GrpcEmulatorServer<ModalListener>, EmulatedSandbox>
  implements ModalEmulator, ModalContext
{
  readonly wire: ModalWire;
  readonly auth: ModalAuth;
  readonly paths: SandboxPaths;
  readonly state: ModalState;
  readonly tunnels: PortListeners;
  readonly pageSize: number;
  readonly #ending = new Set<Promise<void>>();
  readonly #launching = new Set<Promise<EmulatedSandbox>>();

  constructor(
    server: GrpcEmulatorServer<ModalListener>,
    backend: ResolvedBackend,
    wire: ModalWire,
    auth: ModalAuth,
    settings: { pageSize: number; paths: SandboxPaths; environments: readonly string[] },
  ) {
    super(server, backend, new SandboxRegistry<EmulatedSandbox>());
    this.wire = wire;
    this.auth = auth;
    this.pageSize = settings.pageSize;
    this.paths = settings.paths;
    this.state = new ModalState(settings.environments);
    this.tunnels = new PortListeners(backend.runtime);
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port("controlPlane")}`;
  }

  get commandRouterUrl(): string {
    return `https://127.0.0.1:${this.server.port("commandRouter")}`;
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

  override get requests(): readonly ModalRequestRecord[] {
    return super.requests as unknown as readonly ModalRequestRecord[];
  }

  implement(listener: ModalListener, method: string, handler: MethodHandler): void {
    const service = listener === "controlPlane" ? this.wire.controlPlane : this.wire.commandRouter;
    this.server.implement(listener, service, method, handler);
  }

  logNotEmulated(route: string, feature: string): void {
    this.server.logNotEmulated(route, feature);
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
      network: { type: "OPEN", allowedCidrs: [], allowedDomains: [] },
      cpus: undefined,
      memoryMiB: undefined,
      ports: [],
      foreign: true,
    });
    return sandbox.settings.id;
  }

  async createSandbox(input: CreateSandboxInput): Promise<EmulatedSandbox> {
    if (this.stopping) throw new Error("the emulator is stopping");
    const launching = launchSandbox(this.backend, this.state, input);
    this.#launching.add(launching);
    let sandbox: EmulatedSandbox;
    try {
      sandbox = await launching;
    } finally {
      this.#launching.delete(launching);
    }
    if (this.stopping) {
      await destroyBackendSandbox(this.backend, sandbox.handle, DESTROY_TIMEOUT_MS).catch(() => undefined);
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
      await this.tunnels.close(sandbox.settings.id);
      await destroyBackendSandbox(this.backend, sandbox.handle, DESTROY_TIMEOUT_MS).catch(() => undefined);
    })();
    this.#ending.add(ending);
    void ending.finally(() => this.#ending.delete(ending));
    return ending;
  }

  protected async shutDown(): Promise<void> {
    // A create still launching finds the emulator stopping and destroys what it launched.
    await Promise.allSettled([...this.#launching]);
    for (const { data } of this.registry.all())
      void this.endSandbox(data, "GENERIC_STATUS_TERMINATED", "the emulator stopped");
    await Promise.allSettled([...this.#ending]);
    await dropSnapshotImages(this);
  }
}
