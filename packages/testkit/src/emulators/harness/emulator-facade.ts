/**
 * The test-facing members every emulator shares (request log, faults, live
 * sandboxes, backend, an idempotent stop), read from its server, registry and
 * backend, so each provider's emulator class holds only what is its own.
 *
 * @module
 */

import type { SandboxRuntime } from "@sandport/core";
import type { ResolvedBackend } from "./backend.js";
import type { FaultInjector } from "./faults.js";
import type { RequestLog } from "./request-log.js";
import type { SandboxRegistry } from "./sandbox-registry.js";
import type { EmulatedSandboxSummary, EmulatorRequestRecord, FaultRule } from "./types.js";

/** What the facade needs of a server: its request log, its faults and how to stop it (HTTP or gRPC alike). */
export interface FacadeServer {
  readonly log: RequestLog;
  readonly faults: FaultInjector;
  stop(): Promise<void>;
}

/**
 * The shared part of a `ProviderEmulator`. A subclass adds `url`, its SDK
 * options and `seedForeignSandbox`, and says in {@link shutDown} what to close
 * between stopping the server and disposing of the backend.
 */
export abstract class EmulatorFacade<Server extends FacadeServer, Data> {
  /** The sandboxes `liveSandboxes()` reports. */
  readonly registry: SandboxRegistry<Data>;
  readonly #server: Server;
  readonly #backend: ResolvedBackend;
  #stopping: Promise<void> | undefined;

  constructor(server: Server, backend: ResolvedBackend, registry: SandboxRegistry<Data>) {
    this.#server = server;
    this.#backend = backend;
    this.registry = registry;
  }

  /** Base URL of the emulator. */
  abstract get url(): string;

  /** The runtime that runs the sandboxes. */
  get backend(): SandboxRuntime {
    return this.#backend.runtime;
  }

  /** Every request received since start or the last `resetRequests()`, in arrival order. */
  get requests(): readonly EmulatorRequestRecord[] {
    return this.#server.log.records;
  }

  /** `"<METHOD> <path>"` of every request that matched no route. */
  get unknownRoutes(): readonly string[] {
    return this.#server.log.unknownRoutes;
  }

  /** Number of recorded requests whose route equals the string or matches the pattern; all when omitted. */
  countRequests(route?: string | RegExp): number {
    return this.#server.log.count(route);
  }

  /** Forget the recorded requests and unknown routes. A subclass that logs more clears it too. */
  resetRequests(): void {
    this.#server.log.reset();
  }

  /** Arm a fault on the server. */
  injectFault(rule: FaultRule): void {
    this.#server.faults.add(rule);
  }

  /** Disarm every fault. */
  clearFaults(): void {
    this.#server.faults.clear();
  }

  /** Sandboxes that exist right now, ours and foreign. */
  liveSandboxes(): EmulatedSandboxSummary[] {
    return this.registry.summaries();
  }

  /** True once `stop()` was called: a create that finishes after it must undo itself. */
  get stopping(): boolean {
    return this.#stopping !== undefined;
  }

  /** The server this facade reads, for the subclass's own members. */
  protected get server(): Server {
    return this.#server;
  }

  /**
   * Stop the server, then {@link shutDown}, then dispose of the backend. Safe to
   * call twice: every call gets the first call's promise.
   */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      await this.beforeServerStops();
      await this.#server.stop();
      await this.shutDown();
      await this.#backend.dispose();
    })();
    return this.#stopping;
  }

  /** What to do before the server stops (abort detached work, stop a proxy). Default: nothing. */
  protected async beforeServerStops(): Promise<void> {}

  /** Remove every sandbox and close what the subclass opened; the server is stopped by then. */
  protected abstract shutDown(): Promise<void>;
}
