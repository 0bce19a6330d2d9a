/**
 * A local E2B (control plane and envd on one port) for the real `e2b` SDK, on a backend runtime.
 * How to point the SDK at it, what it serves and how it differs from E2B, with sources: README.md here.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import type { SandboxHandle } from "@sandport/core";
import {
  destroyBackendSandbox,
  type EmulatorBackend,
  type ResolvedBackend,
  resolveBackend,
} from "../harness/backend.js";
import { isRpcPath, RpcError, replyRpcError, rpcRouteName } from "../harness/connect-rpc.js";
import { EmulatorFacade } from "../harness/emulator-facade.js";
import { EmulatorServer } from "../harness/http-server.js";
import { SandboxRegistry } from "../harness/sandbox-registry.js";
import type { ProviderEmulator } from "../harness/types.js";
import type { CreateSandboxInput, E2BContext, E2BSandbox, E2BSandboxData, E2BTemplateSize } from "./context.js";
import { registerControlPlane } from "./control-plane.js";
import { backendPolicy } from "./egress.js";
import { registerEnvdFiles } from "./envd-files.js";
import { registerEnvdFilesystem } from "./envd-filesystem.js";
import { registerEnvdInput } from "./envd-input.js";
import { registerEnvdProcess } from "./envd-process.js";
import { E2B_HOME } from "./paths.js";
import { ProcessTable } from "./process-table.js";
import { PortTraffic } from "./sandbox-ports.js";
import { SnapshotTable } from "./snapshot-table.js";

/** Options of {@link startE2BEmulator}. */
export interface E2BEmulatorOptions {
  /** The API key the control plane accepts in `X-API-KEY`. Default: a random `e2b_…` key. */
  readonly apiKey?: string;
  /**
   * Runtime (or factory) that runs the sandboxes. Default: `LocalRuntime` from
   * `@sandport/local` in a temporary directory, with `isolation: "namespaces"`
   * and the workspace at `/home/user` where bubblewrap works, else `isolation: "none"`.
   */
  readonly backend?: EmulatorBackend;
  /**
   * Replaces DNS for the default backend's egress proxy, which enforces
   * `network.allowOut` (the conformance suite passes
   * `conformanceEgressResolver`). Ignored with `backend`.
   */
  readonly egressResolver?: (host: string) => Promise<readonly string[]>;
  /**
   * Largest page `GET /v2/sandboxes` returns (the client's `limit` can only
   * lower it). Default: 3, small so that callers must follow `x-next-token`.
   */
  readonly pageSize?: number;
  /**
   * envd version reported for every sandbox. The SDK picks behaviour from it
   * (e.g. octet-stream uploads from 0.5.7, `closeStdin` from 0.5.2, file
   * metadata from 0.6.2). Default: `"0.5.7"`.
   */
  readonly envdVersion?: string;
  /**
   * What each named template gives its sandboxes (`cpuCount`, `memoryMB`,
   * `diskSizeMB`, as `GET /sandboxes/{id}` and the list report them); a
   * template not named here gives {@link DEFAULT_TEMPLATE_SIZE}. A sandbox
   * created from a snapshot gets its source sandbox's sizes.
   */
  readonly templates?: Readonly<Record<string, E2BTemplateSize>>;
}

/** What a template gives when `templates` does not name it: 2 vCPUs, 512 MiB of memory, 1024 MiB of disk. */
export const DEFAULT_TEMPLATE_SIZE: E2BTemplateSize = Object.freeze({ cpuCount: 2, memoryMB: 512, diskSizeMB: 1024 });

/** The connection options that point the `e2b` SDK at an emulator, every field explicit. */
export interface E2BConnectionOptions {
  readonly apiKey: string;
  readonly apiUrl: string;
  readonly sandboxUrl: string;
  readonly domain: string;
  readonly debug: false;
}

/** A running E2B emulator. */
export interface E2BEmulator extends ProviderEmulator {
  /** The accepted API key. */
  readonly apiKey: string;
  /** Control-plane base URL (the SDK's `apiUrl`). */
  readonly apiUrl: string;
  /** envd base URL for every sandbox (the SDK's `sandboxUrl`); requests carry `E2b-Sandbox-Id`. */
  readonly sandboxUrl: string;
  /** A domain that resolves nowhere, for the SDK's `domain` option. */
  readonly domain: string;
  /** envd version reported for sandboxes. */
  readonly envdVersion: string;
  /** `{ apiKey, apiUrl, sandboxUrl, domain, debug: false }`, ready to spread into SDK calls. */
  readonly sdkOptions: E2BConnectionOptions;
}

const DEFAULT_ENVD_VERSION = "0.5.7";
/** A domain that resolves nowhere: sandbox hosts under it are reached only by a `Host` the client sets. */
const DOMAIN = "e2b-emulator.invalid";
/** The emulated team's slug, the namespace of its named snapshots. */
const TEAM_SLUG = "sandport-emulator";
const DEFAULT_PAGE_SIZE = 3;
const LAUNCH_TIMEOUT_MS = 120_000;
const DESTROY_TIMEOUT_MS = 60_000;

/** Start an E2B emulator on 127.0.0.1 and an ephemeral port. */
export async function startE2BEmulator(options: E2BEmulatorOptions = {}): Promise<E2BEmulator> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
    throw new RangeError(`pageSize must be an integer from 1 to 100, got ${pageSize}`);
  }
  const envdVersion = options.envdVersion ?? DEFAULT_ENVD_VERSION;
  if (!/^\d+\.\d+\.\d+$/.test(envdVersion))
    throw new RangeError(`envdVersion must look like 0.5.7, got ${envdVersion}`);
  const templates = checkTemplates(options.templates ?? {});
  const backend = await resolveBackend(options.backend, {
    workspaceRoot: E2B_HOME,
    ...(options.egressResolver === undefined ? {} : { egressResolver: options.egressResolver }),
  });
  let server: EmulatorServer;
  // Set right after the server starts, before it can receive a request.
  let emulator: E2BEmulatorImpl | undefined;
  try {
    server = await EmulatorServer.start({
      nameUnknownRoute: (method, pathname) =>
        method === "POST" && isRpcPath(pathname) ? rpcRouteName(pathname) : `${method} ${pathname}`,
      answerUnknownRoute: (exchange) => {
        if (emulator?.ports.serveUnmatched(exchange)) return;
        if (exchange.method === "POST" && isRpcPath(exchange.url.pathname)) {
          replyRpcError(
            exchange,
            new RpcError("unimplemented", `${exchange.url.pathname.slice(1)} is not emulated`),
            404,
          );
        } else {
          exchange.json(404, { code: 404, message: `no route for ${exchange.method} ${exchange.url.pathname}` });
        }
      },
    });
  } catch (error) {
    await backend.dispose();
    throw error;
  }
  emulator = new E2BEmulatorImpl(server, backend, {
    apiKey: options.apiKey ?? `e2b_${randomBytes(20).toString("hex")}`,
    pageSize,
    envdVersion,
    templates,
  });
  const routes = emulator.ports.routes(server);
  registerControlPlane(routes, emulator);
  registerEnvdFiles(routes, emulator);
  registerEnvdFilesystem(routes, emulator);
  registerEnvdProcess(routes, emulator);
  registerEnvdInput(routes, emulator);
  return emulator;
}

class E2BEmulatorImpl extends EmulatorFacade<EmulatorServer, E2BSandboxData> implements E2BEmulator, E2BContext {
  readonly apiKey: string;
  readonly envdVersion: string;
  readonly pageSize: number;
  readonly domain = DOMAIN;
  readonly teamSlug = TEAM_SLUG;
  readonly snapshots = new SnapshotTable(() => this.backend);
  /** HTTP to sandbox ports (`sandbox-ports.ts`). */
  readonly ports = new PortTraffic(this, DOMAIN);
  readonly #templates: Readonly<Record<string, E2BTemplateSize>>;

  constructor(
    server: EmulatorServer,
    backend: ResolvedBackend,
    settings: {
      apiKey: string;
      pageSize: number;
      envdVersion: string;
      templates: Readonly<Record<string, E2BTemplateSize>>;
    },
  ) {
    super(server, backend, new SandboxRegistry<E2BSandboxData>());
    this.apiKey = settings.apiKey;
    this.pageSize = settings.pageSize;
    this.envdVersion = settings.envdVersion;
    this.#templates = settings.templates;
  }

  templateSize(templateId: string): E2BTemplateSize {
    return Object.hasOwn(this.#templates, templateId)
      ? (this.#templates[templateId] as E2BTemplateSize)
      : DEFAULT_TEMPLATE_SIZE;
  }

  get url(): string {
    return this.server.url;
  }

  get apiUrl(): string {
    return this.server.url;
  }

  get sandboxUrl(): string {
    return this.server.url;
  }

  get sdkOptions(): E2BConnectionOptions {
    return { apiKey: this.apiKey, apiUrl: this.apiUrl, sandboxUrl: this.sandboxUrl, domain: this.domain, debug: false };
  }

  override get unknownRoutes(): readonly string[] {
    return this.ports.unknownRoutes(super.unknownRoutes);
  }

  override resetRequests(): void {
    super.resetRequests();
    this.ports.reset();
  }

  async seedForeignSandbox(metadata: Record<string, string> = {}): Promise<string> {
    const sandbox = await this.createSandbox({
      templateId: "base",
      metadata: { ...metadata },
      envVars: {},
      timeoutSeconds: 3600,
      autoPause: false,
      egress: { allowInternetAccess: true },
      allowPublicTraffic: true,
      foreign: true,
    });
    return sandbox.id;
  }

  async createSandbox(input: CreateSandboxInput): Promise<E2BSandbox> {
    if (this.stopping) throw new Error("the emulator is stopping");
    const network = backendPolicy(input.egress);
    const from = input.from?.backend;
    const handle = await this.backend.launch(
      { network, ...(from === undefined ? {} : { from }) },
      { timeoutMs: LAUNCH_TIMEOUT_MS },
    );
    return this.#register(handle, input);
  }

  async forkSandbox(source: E2BSandbox, timeoutSeconds: number): Promise<E2BSandbox> {
    if (this.stopping) throw new Error("the emulator is stopping");
    const backend = this.backend;
    if (backend.fork === undefined) throw new Error("the emulator's backend runtime has no fork");
    // The backend's fork copies the workspace and keeps the source's network policy.
    const handle = await backend.fork(source.data.handle, { timeoutMs: LAUNCH_TIMEOUT_MS });
    const { data } = source;
    return this.#register(handle, {
      templateId: data.templateId,
      metadata: { ...source.metadata },
      envVars: data.envVars,
      timeoutSeconds,
      autoPause: data.autoPause,
      egress: data.egress,
      allowPublicTraffic: data.allowPublicTraffic,
      foreign: source.foreign,
    });
  }

  /** Records a backend sandbox as a running E2B sandbox (or destroys it again when the emulator is stopping). */
  async #register(handle: SandboxHandle, input: CreateSandboxInput): Promise<E2BSandbox> {
    const now = Date.now();
    const sandbox: E2BSandbox = {
      id: this.registry.newId("i"),
      metadata: input.metadata,
      foreign: input.foreign,
      state: "running",
      createdAt: now,
      data: {
        templateId: input.templateId,
        size: input.from?.size ?? this.templateSize(input.templateId),
        envVars: input.envVars,
        envdAccessToken: randomBytes(16).toString("hex"),
        trafficAccessToken: input.allowPublicTraffic ? undefined : randomBytes(16).toString("hex"),
        egress: input.egress,
        allowPublicTraffic: input.allowPublicTraffic,
        autoPause: input.autoPause,
        startedAt: now,
        endAt: now,
        handle,
        processes: new ProcessTable(),
        expiryTimer: undefined,
      },
    };
    if (this.stopping) {
      await destroyBackendSandbox(this.backend, handle, DESTROY_TIMEOUT_MS).catch(() => undefined);
      throw new Error("the emulator is stopping");
    }
    this.registry.add(sandbox);
    this.setEndAt(sandbox, now + input.timeoutSeconds * 1000);
    return sandbox;
  }

  setEndAt(sandbox: E2BSandbox, endAt: number): void {
    sandbox.data.endAt = endAt;
    clearTimeout(sandbox.data.expiryTimer);
    if (sandbox.state !== "running") return;
    const timer = setTimeout(() => void this.#expire(sandbox), Math.max(0, endAt - Date.now()));
    timer.unref();
    sandbox.data.expiryTimer = timer;
  }

  async killSandbox(sandbox: E2BSandbox): Promise<void> {
    if (!this.registry.delete(sandbox.id)) return;
    clearTimeout(sandbox.data.expiryTimer);
    sandbox.state = "killed";
    await sandbox.data.processes.killAll();
    await destroyBackendSandbox(this.backend, sandbox.data.handle, DESTROY_TIMEOUT_MS);
  }

  async pauseSandbox(sandbox: E2BSandbox): Promise<void> {
    clearTimeout(sandbox.data.expiryTimer);
    sandbox.state = "paused";
    await sandbox.data.processes.killAll();
  }

  resumeSandbox(sandbox: E2BSandbox, timeoutSeconds: number): void {
    sandbox.state = "running";
    this.setEndAt(sandbox, Date.now() + timeoutSeconds * 1000);
  }

  async #expire(sandbox: E2BSandbox): Promise<void> {
    if (this.registry.get(sandbox.id) !== sandbox || sandbox.state !== "running") return;
    try {
      if (sandbox.data.autoPause) await this.pauseSandbox(sandbox);
      else await this.killSandbox(sandbox);
    } catch {
      // The sandbox is already out of the registry; a failed workspace cleanup has no one to report to.
    }
  }

  protected async shutDown(): Promise<void> {
    await Promise.allSettled(this.registry.all().map((sandbox) => this.killSandbox(sandbox)));
    await this.snapshots.clear();
  }
}

/** The `templates` option, each size a positive integer (the OpenAPI's `int32` sizes), frozen. */
function checkTemplates(
  templates: Readonly<Record<string, E2BTemplateSize>>,
): Readonly<Record<string, E2BTemplateSize>> {
  const checked: Record<string, E2BTemplateSize> = {};
  for (const [name, size] of Object.entries(templates)) {
    for (const field of ["cpuCount", "memoryMB", "diskSizeMB"] as const) {
      const value = size[field];
      if (!Number.isInteger(value) || value < 1 || value > 2 ** 31 - 1) {
        throw new RangeError(`templates.${name}.${field} must be a positive int32, got ${value}`);
      }
    }
    checked[name] = Object.freeze({ cpuCount: size.cpuCount, memoryMB: size.memoryMB, diskSizeMB: size.diskSizeMB });
  }
  return Object.freeze(checked);
}
