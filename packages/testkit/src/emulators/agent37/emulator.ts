/**
 * A local Agent37 (the hosting plane and each instance's own URL, on one
 * port) for `@sandport/agent37`, which speaks the HTTP API over `fetch`:
 * every instance is a sandbox on a backend runtime, so commands and files
 * are real. What it serves and how it differs from Agent37, with sources:
 * README.md here.
 *
 * @module
 */

import type { SandboxRuntime } from "@sandport/core";
import {
  destroyBackendSandbox,
  type EmulatorBackend,
  type ResolvedBackend,
  resolveBackend,
} from "../harness/backend.js";
import { EmulatorFacade } from "../harness/emulator-facade.js";
import { EmulatorServer } from "../harness/http-server.js";
import { PortListeners } from "../harness/port-listeners.js";
import { SandboxRegistry } from "../harness/sandbox-registry.js";
import type { ProviderEmulator } from "../harness/types.js";
import { EDGE_PREFIX, registerInstancePlaneRoutes } from "./instance-plane.js";
import { type CreateInput, type InstanceFleet, newInstanceId, registerInstanceRoutes } from "./instances.js";
import type { Agent37Instance, Agent37InstanceData } from "./state.js";
import { Agent37WireError, agent37ErrorReply, type InstanceAuth, sendError } from "./wire.js";

/** Options of {@link startAgent37Emulator}. */
export interface Agent37EmulatorOptions {
  /** The workspace key accepted on both planes. Default `sk_live_emulator`. */
  readonly apiKey?: string;
  /** Where instances run. Default: a `LocalRuntime` in a temporary directory. */
  readonly backend?: EmulatorBackend;
  /** How long exec waits before answering 502 `provisioning_failed`. Default 280 000 (the service's cap). */
  readonly execCapMs?: number;
  /** Bytes of each stream exec returns before cutting it. Default 512 000. */
  readonly outputCapBytes?: number;
  /** Which header the instance edge takes the key in. Default `"either"` (the sources disagree). */
  readonly instanceAuth?: InstanceAuth;
  /** The instance user's home directory, mapped onto the backend workspace. Default `/home/node`. */
  readonly homeDirectory?: string;
}

/** A running Agent37 emulator. */
export interface Agent37Emulator extends ProviderEmulator {
  /** The accepted workspace key. */
  readonly apiKey: string;
  /** The hosting API's base URL (`<url>`; paths start with `/v1`). */
  readonly baseUrl: string;
  /** The instance user's home directory. */
  readonly homeDirectory: string;
  /** The runtime the instances run on. */
  readonly backend: SandboxRuntime;
  /** Every command exec received and started, in arrival order: what ran, however often it was sent. */
  readonly executed: readonly string[];
}

/** Start an Agent37 emulator on 127.0.0.1 and an ephemeral port. */
export async function startAgent37Emulator(options: Agent37EmulatorOptions = {}): Promise<Agent37Emulator> {
  const homeDirectory = options.homeDirectory ?? "/home/node";
  const backend = await resolveBackend(options.backend, { workspaceRoot: homeDirectory, sharedProcesses: true });
  let server: EmulatorServer;
  try {
    server = await EmulatorServer.start({
      errorReply: agent37ErrorReply,
      answerUnknownRoute: (exchange) =>
        sendError(
          exchange,
          new Agent37WireError(404, "not_found", `not emulated: ${exchange.method} ${exchange.url.pathname}`),
        ),
    });
  } catch (error) {
    await backend.dispose();
    throw error;
  }
  const emulator = new Agent37EmulatorImpl(server, backend, {
    apiKey: options.apiKey ?? "sk_live_emulator",
    execCapMs: options.execCapMs ?? 280_000,
    outputCapBytes: options.outputCapBytes ?? 512_000,
    instanceAuth: options.instanceAuth ?? "either",
    homeDirectory,
  });
  registerInstanceRoutes(server, emulator);
  registerInstancePlaneRoutes(server, emulator);
  return emulator;
}

interface Settings {
  readonly apiKey: string;
  readonly execCapMs: number;
  readonly outputCapBytes: number;
  readonly instanceAuth: InstanceAuth;
  readonly homeDirectory: string;
}

class Agent37EmulatorImpl
  extends EmulatorFacade<EmulatorServer, Agent37InstanceData>
  implements Agent37Emulator, InstanceFleet
{
  readonly apiKey: string;
  readonly execCapMs: number;
  readonly outputCapBytes: number;
  readonly instanceAuth: InstanceAuth;
  readonly homeDirectory: string;
  readonly executed: string[] = [];
  /** Public ports: Agent37 serves them from its own hosts, the emulator from a listener per port. */
  readonly #publicPorts: PortListeners;

  constructor(server: EmulatorServer, backend: ResolvedBackend, settings: Settings) {
    super(server, backend, new SandboxRegistry<Agent37InstanceData>());
    this.apiKey = settings.apiKey;
    this.execCapMs = settings.execCapMs;
    this.outputCapBytes = settings.outputCapBytes;
    this.instanceAuth = settings.instanceAuth;
    this.homeDirectory = settings.homeDirectory;
    this.#publicPorts = new PortListeners(backend.runtime);
  }

  get url(): string {
    return this.server.url;
  }

  get baseUrl(): string {
    return this.server.url;
  }

  get origin(): string {
    return this.server.url;
  }

  async createInstance(input: CreateInput): Promise<Agent37Instance> {
    const handle = await this.backend.launch({ network: true, env: input.env });
    if (this.stopping) {
      await destroyBackendSandbox(this.backend, handle).catch(() => {});
      throw new Agent37WireError(503, "no_capacity", "the emulator is stopping");
    }
    const id = newInstanceId();
    const created = Math.floor(Date.now() / 1000);
    const listened = await this.#publicPorts.open(id, handle, input.publicPorts);
    const publicPorts = listened.map(({ port, url }) => ({ port, url, prefix: null, created }));
    const instance: Agent37Instance = {
      id,
      metadata: { ...input.metadata },
      foreign: input.foreign,
      state: "running",
      createdAt: Date.now(),
      data: {
        handle,
        template: input.template,
        name: input.name,
        user: input.user,
        url: `${this.server.url}${EDGE_PREFIX}/${id}`,
        created,
        publicPorts,
      },
    };
    this.registry.add(instance);
    return instance;
  }

  async deleteInstance(instance: Agent37Instance): Promise<void> {
    this.registry.delete(instance.id);
    await this.#publicPorts.close(instance.id);
    await destroyBackendSandbox(this.backend, instance.data.handle);
  }

  async seedForeignSandbox(metadata: Record<string, string> = {}): Promise<string> {
    const instance = await this.createInstance({
      template: "agent37-hermes",
      name: null,
      user: null,
      metadata,
      env: {},
      publicPorts: [],
      foreign: true,
    });
    return instance.id;
  }

  protected async shutDown(): Promise<void> {
    await Promise.all(this.registry.all().map((instance) => this.deleteInstance(instance).catch(() => {})));
  }
}
