/**
 * A local Freestyle: the `/v5` API of `api.freestyle.sh` (and the legacy
 * `/v1` VM routes) on one 127.0.0.1 port, close enough for the real
 * `freestyle` SDK (0.2.x) and the legacy `freestyle-sandboxes` SDK (0.1.x) to
 * run against it. Every VM is a sandbox on a backend runtime from the port, so
 * commands run and files persist for real.
 *
 * Point the SDK at it with `new Freestyle(emulator.sdkOptions)` (`apiKey`,
 * `baseUrl`, `fetch`).
 *
 * Emulated: VMs (create with metadata, slug, display name, limits and a
 * required firewall; get by id or slug; list with `state`, `slug`,
 * `snapshotId` and `metadata=k:v,...` filters and `limit`/`offset` paging;
 * update; delete; start; pause), `exec-await`, the filesystem (`read` with
 * `Range`, `write`, resumable uploads, `dir`, `mkdir`, `remove`, `exists`,
 * `stat`), background requests (`x-freestyle-background-after-secs`, 202,
 * `GET /v5/background-requests/{id}`), API-key authentication, and on `/v1`:
 * create, list, get, delete, start, stop, suspend, kill, `exec-await` and
 * files (base64 JSON, directory listings) over the same VMs.
 *
 * What differs from Freestyle, on purpose or by necessity:
 * - One VM directory (`workspaceDirectory`, default the backend's
 *   `workspaceRoot`, `/workspace`) maps onto the backend workspace; file paths
 *   outside it are refused with 400 `NOT_EMULATED`. Command text is not
 *   rewritten: a command starts in the workspace (a real VM starts in the
 *   user's home), and with the default `isolation: "none"` backend an absolute
 *   `/workspace/...` inside a command does not exist (a `namespaces` backend
 *   mounts the workspace there).
 * - Commands run with `sh -c`; a VM has one Linux user (`linuxUser`, default
 *   `root`), and `linuxUser` naming another is 404 `USER_NOT_FOUND`. Output is
 *   decoded as UTF-8 by the port; files are binary-safe.
 * - The firewall is reduced to one bit, whether some rule lets the VM reach
 *   the public Internet, passed to the backend as `network`; a backend that
 *   cannot keep a VM off the network (`isolation: "none"`) refuses a create
 *   without such a rule with 400 `NOT_EMULATED`.
 * - Pausing keeps files but no memory: nothing outlives an exec on the
 *   backend anyway. Exec and file calls start a paused VM, as on Freestyle.
 *   `idleTimeoutSeconds` is stored, never enforced (no network traffic is
 *   seen); `ttlSeconds`, `maxRunSeconds`, `maxRunTotalSeconds` and
 *   `autoDeleteSeconds` are enforced with timers.
 * - Only the API key authenticates, as `Authorization: Bearer <key>` or in
 *   `x-freestyle-identity-access-token`; identity tokens and Stack access
 *   tokens are not emulated and are refused with 401 like a wrong key.
 * - Snapshots are names only: the catalog (`freestyle/ubuntu`, ...) plus
 *   `options.snapshots`; all boot the same backend. `resources` are the
 *   catalog's nominal sizes. List order is oldest first; the state counts
 *   cover the filtered VMs.
 * - Error codes come from Freestyle's published error catalog where it has
 *   one (`VM_NOT_FOUND`, `FILE_NOT_FOUND`, `SNAPSHOT_NOT_FOUND`,
 *   `USER_NOT_FOUND`, `VM_NOT_RUNNING`, `UNAUTHORIZED`, `BAD_REQUEST`,
 *   `SERVICE_UNAVAILABLE`, `INTERNAL_ERROR`); the others (`SLUG_TAKEN`,
 *   `RATE_LIMITED`, `SHA256_MISMATCH`, `RANGE_NOT_SATISFIABLE`, `UPLOAD_*`,
 *   `VM_RUN_BUDGET_EXHAUSTED`, `BACKGROUND_*`, `NOT_EMULATED`) are the
 *   emulator's own.
 * - Not emulated (answered 404 and logged in `unknownRoutes`, never faked):
 *   PTY sessions and interactive stdin (see `interactive.ts`), TLS rules and
 *   published ports (see `published-ports.ts`; a create with TLS rules is
 *   400 `NOT_EMULATED`), firewall rule routes, resize, snapshots, VPCs,
 *   tunnels, domains, identities; `vpcs` and `placement` on create are 400
 *   `NOT_EMULATED`. On `/v1`: fork, snapshot, optimize, resize, await,
 *   terminals, systemd, watch-files, background-request logs, and create
 *   options beyond `workdir`, `idleTimeoutSeconds`, `snapshotId` and
 *   `persistence` (accepted, not enforced). The legacy SDK's `fs.mkdir`,
 *   `remove`, `exists` and `stat` are shell commands, whose paths the
 *   emulator cannot map (see `legacy-v1-files.ts`).
 *
 * @module
 */

import type { SandboxRuntime } from "@sandport/core";
import { type ResolvedBackend, resolveBackend } from "../harness/backend.js";
import { EmulatorServer } from "../harness/http-server.js";
import type { EmulatedSandboxSummary, EmulatorRequestRecord, FaultRule, ProviderEmulator } from "../harness/types.js";
import { apiErrorReply, codeForStatus } from "./api.js";
import type { BackgroundRequests } from "./background.js";
import type { FreestyleContext } from "./context.js";
import { registerExecRoute } from "./exec.js";
import { registerFileRoutes } from "./files.js";
import { registerInteractiveRoutes } from "./interactive.js";
import { registerLegacyRoutes } from "./legacy-v1.js";
import { type FreestyleEmulatorOptions, resolveSettings, type Settings } from "./options.js";
import { registerPublishedPortRoutes } from "./published-ports.js";
import { addApiRoute } from "./routes.js";
import { registerUploadRoutes } from "./uploads.js";
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

class FreestyleEmulatorImpl extends VmFleet implements FreestyleEmulator, FreestyleContext {
  readonly apiKey: string;
  readonly pageSize: number;
  readonly workspaceDirectory: string;
  readonly linuxUser: string;
  readonly snapshots: ReadonlySet<string>;
  readonly background: BackgroundRequests;
  readonly #server: EmulatorServer;
  readonly #backend: ResolvedBackend;
  readonly #stopController = new AbortController();
  #stopping: Promise<void> | undefined;

  constructor(server: EmulatorServer, backend: ResolvedBackend, settings: Settings) {
    super(() => backend.runtime);
    this.#server = server;
    this.#backend = backend;
    this.apiKey = settings.apiKey;
    this.pageSize = settings.pageSize;
    this.workspaceDirectory = settings.workspaceDirectory;
    this.linuxUser = settings.linuxUser;
    this.snapshots = settings.snapshots;
    this.background = settings.background;
  }

  get backend(): SandboxRuntime {
    return this.#backend.runtime;
  }

  get stopSignal(): AbortSignal {
    return this.#stopController.signal;
  }

  get url(): string {
    return this.#server.url;
  }

  get baseUrl(): string {
    return this.#server.url;
  }

  get sdkOptions(): FreestyleConnectionOptions {
    return { apiKey: this.apiKey, baseUrl: this.baseUrl, fetch: (input, init) => globalThis.fetch(input, init) };
  }

  get requests(): readonly EmulatorRequestRecord[] {
    return this.#server.log.records;
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
      legacyWorkdir: null,
      foreign: true,
    });
    return vm.id;
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#stopController.abort(new Error("emulator stopped"));
      await this.#server.stop();
      this.background.clear();
      await this.close();
      await this.#backend.dispose();
    })();
    return this.#stopping;
  }
}
