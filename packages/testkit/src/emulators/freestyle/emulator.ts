/**
 * A local Freestyle (`/v5` and the legacy `/v1` routes on one port) for the real `freestyle` and
 * `freestyle-sandboxes` SDKs, on a backend runtime. How to point the SDK at it, what it serves and
 * how it differs from Freestyle, with sources: README.md here.
 *
 * @module
 */

import { type ResolvedBackend, resolveBackend } from "../harness/backend.js";
import { EmulatorFacade } from "../harness/emulator-facade.js";
import { EmulatorServer } from "../harness/http-server.js";
import type { ProviderEmulator } from "../harness/types.js";
import { apiErrorReply, codeForStatus } from "./api.js";
import type { BackgroundRequests } from "./background.js";
import type { CreateVmInput, FreestyleContext, FreestyleVm, FreestyleVmData } from "./context.js";
import { registerExecRoute } from "./exec.js";
import { registerFileRoutes } from "./files.js";
import { registerInteractiveRoutes } from "./interactive.js";
import { registerLegacyRoutes } from "./legacy-v1.js";
import { type FreestyleEmulatorOptions, resolveSettings, type Settings } from "./options.js";
import { registerPublishedPortRoutes } from "./published-ports.js";
import { addApiRoute } from "./routes.js";
import { SnapshotShelf } from "./snapshot-shelf.js";
import { registerSnapshotRoutes, snapshotting } from "./snapshots.js";
import { registerUploadRoutes, type UploadSessions } from "./uploads.js";
import { VmFleet } from "./vm-fleet.js";
import { DEFAULT_SNAPSHOT } from "./vm-options.js";
import { registerVmRoutes } from "./vms.js";

export type { FreestyleEmulatorOptions } from "./options.js";

/** The options that point the `freestyle` SDK (or `freestyle-sandboxes`) at an emulator. */
export interface FreestyleConnectionOptions {
  readonly apiKey: string;
  readonly baseUrl: string;
  /** The global `fetch`, passed explicitly so the SDK's own transport choice never applies. */
  readonly fetch: typeof fetch;
}

/** A running Freestyle emulator. */
export interface FreestyleEmulator extends ProviderEmulator {
  /** The accepted API key. */
  readonly apiKey: string;
  /** The SDK's `baseUrl` (no version: the SDK writes `/v5` into every path). */
  readonly baseUrl: string;
  /** The VM directory mapped onto the backend workspace. */
  readonly workspaceDirectory: string;
  /** `{ apiKey, baseUrl, fetch }`, ready for `new Freestyle(...)`. */
  readonly sdkOptions: FreestyleConnectionOptions;
}

/** The default `workspaceDirectory`; the default backend shows commands the workspace at the one in use. */
const FREESTYLE_WORKSPACE = "/workspace";

/** Start a Freestyle emulator on 127.0.0.1 and an ephemeral port. */
export async function startFreestyleEmulator(options: FreestyleEmulatorOptions = {}): Promise<FreestyleEmulator> {
  const backend = await resolveBackend(options.backend, {
    workspaceRoot: options.workspaceDirectory ?? FREESTYLE_WORKSPACE,
    sharedProcesses: true,
    ...(options.egressResolver === undefined ? {} : { egressResolver: options.egressResolver }),
  });
  let server: EmulatorServer;
  let settings: Settings;
  try {
    settings = resolveSettings(options, backend.runtime.workspaceRoot);
    server = await EmulatorServer.start({
      errorReply: apiErrorReply,
      answerUnknownRoute: (exchange) =>
        exchange.json(404, {
          code: codeForStatus(404),
          message: `not emulated: no route for ${exchange.method} ${exchange.url.pathname}`,
        }),
    });
  } catch (error) {
    await backend.dispose();
    throw error;
  }
  const emulator = new FreestyleEmulatorImpl(server, backend, settings);
  registerVmRoutes(server, emulator);
  registerSnapshotRoutes(server, emulator);
  registerExecRoute(server, emulator);
  registerFileRoutes(server, emulator);
  registerUploadRoutes(server, emulator);
  registerInteractiveRoutes(server, emulator);
  registerPublishedPortRoutes(server, emulator);
  registerLegacyRoutes(server, emulator);
  addApiRoute(server, emulator, "GET", "/v5/background-requests/:requestId", (call) =>
    emulator.background.poll(call.params.requestId ?? ""),
  );
  return emulator;
}

class FreestyleEmulatorImpl
  extends EmulatorFacade<EmulatorServer, FreestyleVmData>
  implements FreestyleEmulator, FreestyleContext
{
  readonly apiKey: string;
  readonly pageSize: number;
  readonly workspaceDirectory: string;
  readonly linuxUser: string;
  readonly snapshots: ReadonlySet<string>;
  readonly background: BackgroundRequests;
  readonly shelf = new SnapshotShelf();
  /** The VMs and their lifecycle, which the context's VM operations are. */
  readonly #fleet: VmFleet;
  readonly #stopController = new AbortController();

  constructor(server: EmulatorServer, backend: ResolvedBackend, settings: Settings) {
    const fleet = new VmFleet(() => backend.runtime);
    super(server, backend, fleet.registry);
    this.#fleet = fleet;
    this.apiKey = settings.apiKey;
    this.pageSize = settings.pageSize;
    this.workspaceDirectory = settings.workspaceDirectory;
    this.linuxUser = settings.linuxUser;
    this.snapshots = settings.snapshots;
    this.background = settings.background;
  }

  get uploads(): UploadSessions {
    return this.#fleet.uploads;
  }

  get stopSignal(): AbortSignal {
    return this.#stopController.signal;
  }

  get url(): string {
    return this.server.url;
  }

  get baseUrl(): string {
    return this.server.url;
  }

  get sdkOptions(): FreestyleConnectionOptions {
    return { apiKey: this.apiKey, baseUrl: this.baseUrl, fetch: (input, init) => globalThis.fetch(input, init) };
  }

  findVm(idOrSlug: string): FreestyleVm | undefined {
    return this.#fleet.findVm(idOrSlug);
  }

  createVm(input: CreateVmInput): Promise<FreestyleVm> {
    return this.#fleet.createVm(input);
  }

  deleteVm(vm: FreestyleVm): Promise<void> {
    return this.#fleet.deleteVm(vm);
  }

  pauseVm(vm: FreestyleVm): void {
    this.#fleet.pauseVm(vm);
  }

  startVm(vm: FreestyleVm): void {
    this.#fleet.startVm(vm);
  }

  stopVm(vm: FreestyleVm): void {
    this.#fleet.stopVm(vm);
  }

  rearm(vm: FreestyleVm): void {
    this.#fleet.rearm(vm);
  }

  async seedForeignSandbox(metadata: Record<string, string> = {}): Promise<string> {
    const vm = await this.createVm({
      slug: null,
      reassignSlug: false,
      displayName: null,
      snapshotId: DEFAULT_SNAPSHOT,
      metadata: { ...metadata },
      limits: {
        idleTimeoutSeconds: null,
        autoDeleteSeconds: null,
        ttlSeconds: null,
        maxRunSeconds: null,
        maxRunTotalSeconds: null,
      },
      automaticRestart: true,
      firewallRules: [],
      publicEgress: true,
      egressRanges: [],
      legacyWorkdir: null,
      foreign: true,
    });
    return vm.id;
  }

  protected override async beforeServerStops(): Promise<void> {
    this.#stopController.abort(new Error("emulator stopped"));
  }

  protected async shutDown(): Promise<void> {
    this.background.clear();
    await this.#fleet.close();
    // The backend's copies go too (a caller's backend outlives the emulator).
    const kept = this.shelf.all();
    for (const stored of kept) this.shelf.remove(stored.id);
    if (kept.length > 0) {
      const backend = snapshotting(this.backend);
      await Promise.allSettled(kept.map((stored) => backend.deleteSnapshot(stored.backend)));
    }
  }
}
