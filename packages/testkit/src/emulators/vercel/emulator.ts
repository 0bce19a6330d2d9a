/**
 * A local Vercel Sandbox API, close enough for the real `@vercel/sandbox`
 * SDK (3.0 to 3.5) to run against it. Every sandbox is a workspace on a
 * backend runtime from the port, so commands run and files persist for real.
 *
 * The SDK's base URL is fixed (`https://vercel.com/api`), so the emulator
 * hands out a `fetch` that sends those requests to its 127.0.0.1 port and
 * refuses every other destination. Pass `emulator.sdkOptions` (`token`,
 * `teamId`, `projectId`, `fetch`) to every SDK call; the token is not a JWT,
 * so the SDK never tries to refresh it through OIDC.
 *
 * Served: create (`POST /v3/sandboxes`, and `/v2/sandboxes` for `runtime`),
 * list (`project`, `namePrefix`, one `tags=key:value`, sort, `limit`,
 * `cursor`), get by name (`resume=true` starts a new session), delete; session
 * get, stop, extend-timeout; run command (detached, or waited with an NDJSON
 * stream), get command (`wait=true`), command logs (NDJSON, replayed from the
 * first line, then live), kill; `fs/write` (gzipped tar, modes kept),
 * `fs/read`, `fs/mkdir`. A stopped session answers 410 `sandbox_stopped`, on
 * which the SDK resumes the sandbox (`GET ?resume=true`) and repeats the call.
 * The SDK's `sandbox.fs` helpers (readdir, stat, rm, ...) are commands.
 *
 * What differs from Vercel, on purpose or by necessity:
 * - `/vercel/sandbox` is the backend workspace and nothing else exists: request
 *   paths (cwd, files) elsewhere are refused with 400. A command argument that
 *   is a whole path under `/vercel/sandbox` (the program too) is rewritten to
 *   the workspace as commands see it; text inside arguments (`sh -c` scripts,
 *   `--out=/vercel/...`) is not, and output shows the backend's own paths
 *   (`pwd` prints the host directory under `isolation: "none"`; a namespaced
 *   `LocalRuntime` with `workspaceRoot: "/vercel/sandbox"` puts the workspace there).
 * - Commands run as the backend's user, with the backend's base environment
 *   (its `PATH`, and `HOME` set to the workspace by `LocalRuntime`) plus the
 *   sandbox and command env; `sudo: true` is refused with 400. The image or runtime is recorded, not
 *   used. Output is UTF-8 text (the port streams strings; other bytes are
 *   replaced); files are binary-safe.
 * - Signals 1, 2, 3, 9 and 15 all kill the whole process tree (the port kills
 *   by aborting) and the exit code is 128 + the signal; a command timeout
 *   reports 137. Other signals are refused with 400.
 * - Stopping kills the session's commands; a persistent sandbox (the default)
 *   keeps its files for the next session, a non-persistent one gets a fresh
 *   workspace. No snapshot object is reported for a stop. A session whose
 *   timeout passes is stopped the same way.
 * - Credentials: a missing or wrong bearer token and a wrong `teamId` are 403
 *   `forbidden` (`missingToken` / `invalidToken`), an unknown project is 404.
 *   The emulator serves one team and one project.
 * - The default page size of the list is small (`pageSize`, 3) and caps every
 *   page, so callers must follow `pagination.next`. A `limit` outside 1-50,
 *   and a name prefix without `sortBy=name`, are refused with 400, as the
 *   REST API refuses them.
 * - `networkPolicy` may be absent, allow-all or deny-all (handed to the backend
 *   as the port's `network`, which may refuse it); anything finer, `source`,
 *   `mounts` and `networkId` are refused with 400.
 * - Preview URLs: every declared port has a route, and `domain(port)` gives
 *   `https://sb-<token>-<port>.vercel.run`. No DNS name leads here, so while
 *   an emulator runs, this process's global `fetch` (and the emulator's own
 *   `fetch`) sends the hosts it issued to its preview proxy, which relays to
 *   the backend's endpoint for the port (see `exposed-ports.ts`,
 *   `preview-hosts.ts`). Other HTTP clients cannot reach them. Preview traffic
 *   is not in the request log, and faults do not apply to it.
 * - Not emulated (answered 404 `not_found` and logged in `unknownRoutes`):
 *   interactive shells (`POST .../interactive`, see `interactive.ts`),
 *   snapshots, fork, update (`PATCH`), network policy updates, session and
 *   snapshot lists, drives.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import type { SandboxRuntime } from "@sandport/core";
import { type EmulatorBackend, type ResolvedBackend, resolveBackend } from "../harness/backend.js";
import { EmulatorServer } from "../harness/http-server.js";
import { randomToken, type SandboxRegistry } from "../harness/sandbox-registry.js";
import type { EmulatedSandboxSummary, EmulatorRequestRecord, FaultRule, ProviderEmulator } from "../harness/types.js";
import { registerCommandRoutes } from "./command-routes.js";
import type { VercelContext, VercelSandboxData } from "./context.js";
import { vercelErrorReply } from "./errors.js";
import { findPreviewRoute } from "./exposed-ports.js";
import { registerFileRoutes } from "./file-routes.js";
import { answerNotEmulated, registerNotEmulated } from "./not-emulated.js";
import { SANDBOX_ROOT } from "./paths.js";
import { routePreviewHosts } from "./preview-hosts.js";
import { PreviewProxy } from "./preview-proxy.js";
import { DEFAULT_REGION, DEFAULT_TIMEOUT_MS } from "./sandbox-create.js";
import { SandboxLifecycle } from "./sandbox-lifecycle.js";
import { registerSandboxRoutes } from "./sandbox-routes.js";
import { registerSessionRoutes } from "./session-routes.js";
import { createEmulatorFetch, VERCEL_API_BASE } from "./transport.js";

/** Options of {@link startVercelEmulator}. */
export interface VercelEmulatorOptions {
  /** The bearer token the emulator accepts. Must not look like a JWT. Default: a random `vcp_…` token. */
  readonly token?: string;
  /** The team every request must name in `?teamId=`. Default: a random `team_…` id. */
  readonly teamId?: string;
  /** The one project the emulator serves. Default: a random `prj_…` id. */
  readonly projectId?: string;
  /**
   * Runtime (or factory) that runs the sandboxes. Default: `LocalRuntime` from
   * `@sandport/local` in a temporary directory, `isolation: "none"`.
   */
  readonly backend?: EmulatorBackend;
  /**
   * Largest page `GET /v2/sandboxes` returns (the client's `limit` can only
   * lower it). Default: 3, small so that callers must follow the cursor.
   */
  readonly pageSize?: number;
}

/** The credentials the SDK needs, all three explicit so it never looks for ambient ones. */
export interface VercelCredentials {
  /** Bearer token (an opaque access token, never a JWT). */
  readonly token: string;
  /** The team (`?teamId=` on every request). */
  readonly teamId: string;
  /** The project (in create bodies, `?projectId=` on get and delete, `?project=` on list). */
  readonly projectId: string;
}

/** What to spread into every SDK call: the credentials and the emulator's `fetch`. */
export interface VercelConnectionOptions extends VercelCredentials {
  /** The emulator's `fetch` (see {@link VercelEmulator.fetch}). */
  readonly fetch: typeof globalThis.fetch;
}

/** A running Vercel Sandbox emulator. */
export interface VercelEmulator extends ProviderEmulator {
  /** The base URL the SDK uses, which {@link VercelEmulator.fetch} maps onto {@link ProviderEmulator.url}. */
  readonly baseUrl: string;
  /** A `fetch` serving `https://vercel.com/api/...` from the emulator and refusing every other URL. */
  readonly fetch: typeof globalThis.fetch;
  /** The only credentials the emulator accepts. */
  readonly credentials: VercelCredentials;
  /** `{ token, teamId, projectId, fetch }`, ready to spread into SDK calls. */
  readonly sdkOptions: VercelConnectionOptions;
}

const DEFAULT_PAGE_SIZE = 3;

/** Start a Vercel Sandbox emulator on 127.0.0.1 and an ephemeral port. */
export async function startVercelEmulator(options: VercelEmulatorOptions = {}): Promise<VercelEmulator> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 50) {
    throw new RangeError(`pageSize must be an integer from 1 to 50, got ${pageSize}`);
  }
  const token = options.token ?? `vcp_${randomBytes(20).toString("hex")}`;
  if (token.split(".").length === 3) {
    throw new RangeError("token must not look like a JWT: the SDK would try to refresh it through Vercel OIDC");
  }
  const credentials: VercelCredentials = {
    token,
    teamId: options.teamId ?? `team_${randomToken(24)}`,
    projectId: options.projectId ?? `prj_${randomToken(28)}`,
  };
  const backend = await resolveBackend(options.backend, { workspaceRoot: SANDBOX_ROOT, sharedProcesses: true });
  const sandboxes = new SandboxLifecycle(backend.runtime, credentials.projectId);
  const findRoute = (hostname: string) => findPreviewRoute(sandboxes.registry.all(), hostname);
  let server: EmulatorServer | undefined;
  let preview: Preview | undefined;
  try {
    server = await EmulatorServer.start({ errorReply: vercelErrorReply, answerUnknownRoute: answerNotEmulated });
    const proxy = await PreviewProxy.start(backend.runtime, findRoute);
    preview = { proxy, unroute: () => {} };
    preview.unroute = await routePreviewHosts((hostname) => (findRoute(hostname) ? proxy.url : undefined));
  } catch (error) {
    await preview?.proxy.stop();
    await server?.stop();
    await backend.dispose();
    throw error;
  }
  const emulator = new VercelEmulatorImpl(server, backend, sandboxes, preview, credentials, pageSize);
  registerSandboxRoutes(server, emulator);
  registerSessionRoutes(server, emulator);
  registerCommandRoutes(server, emulator);
  registerFileRoutes(server, emulator);
  registerNotEmulated(server);
  return emulator;
}

/** The preview proxy of an emulator, and how to stop routing its hosts to it. */
interface Preview {
  readonly proxy: PreviewProxy;
  unroute: () => void;
}

class VercelEmulatorImpl implements VercelEmulator, VercelContext {
  readonly credentials: VercelCredentials;
  readonly pageSize: number;
  readonly baseUrl = VERCEL_API_BASE;
  readonly fetch: typeof globalThis.fetch;
  readonly sandboxes: SandboxLifecycle;
  readonly #server: EmulatorServer;
  readonly #backend: ResolvedBackend;
  readonly #preview: Preview;
  #stopping: Promise<void> | undefined;

  constructor(
    server: EmulatorServer,
    backend: ResolvedBackend,
    sandboxes: SandboxLifecycle,
    preview: Preview,
    credentials: VercelCredentials,
    pageSize: number,
  ) {
    this.#server = server;
    this.#backend = backend;
    this.#preview = preview;
    this.credentials = credentials;
    this.pageSize = pageSize;
    this.sandboxes = sandboxes;
    this.fetch = createEmulatorFetch(
      () => this.#server.url,
      (hostname) => findPreviewRoute(sandboxes.registry.all(), hostname) !== undefined,
    );
  }

  get registry(): SandboxRegistry<VercelSandboxData> {
    return this.sandboxes.registry;
  }

  get token(): string {
    return this.credentials.token;
  }

  get teamId(): string {
    return this.credentials.teamId;
  }

  get projectId(): string {
    return this.credentials.projectId;
  }

  get sdkOptions(): VercelConnectionOptions {
    return { ...this.credentials, fetch: this.fetch };
  }

  get backend(): SandboxRuntime {
    return this.#backend.runtime;
  }

  get url(): string {
    return this.#server.url;
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
    const name = `foreign-${randomToken(12)}`;
    if (!this.sandboxes.reserveName(name)) throw new Error(`sandbox name ${name} is taken`);
    try {
      await this.sandboxes.create({
        name,
        persistent: true,
        region: DEFAULT_REGION,
        failoverRegions: undefined,
        vcpus: 2,
        timeout: DEFAULT_TIMEOUT_MS,
        network: true,
        ports: [],
        env: {},
        tags: { ...metadata },
        image: undefined,
        runtime: undefined,
        foreign: true,
      });
    } catch (error) {
      this.sandboxes.releaseName(name);
      throw error;
    }
    return name;
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#preview.unroute();
      await this.#preview.proxy.stop();
      await this.#server.stop();
      await this.sandboxes.close();
      await this.#backend.dispose();
    })();
    return this.#stopping;
  }
}
