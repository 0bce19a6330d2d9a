/**
 * A local Vercel Sandbox API for the real `@vercel/sandbox` SDK, reached through the emulator's own
 * `fetch`, on a backend runtime. How to point the SDK at it, what it serves and how it differs from
 * Vercel, with sources: README.md here.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { type EmulatorBackend, type ResolvedBackend, resolveBackend } from "../harness/backend.js";
import { EmulatorFacade } from "../harness/emulator-facade.js";
import { EmulatorServer } from "../harness/http-server.js";
import { randomToken } from "../harness/sandbox-registry.js";
import type { ProviderEmulator } from "../harness/types.js";
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
   * Replaces DNS for the default backend's egress proxy, which enforces a
   * user-defined `networkPolicy` (the conformance suite passes
   * `conformanceEgressResolver`). Ignored with `backend`.
   */
  readonly egressResolver?: (host: string) => Promise<readonly string[]>;
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
  const backend = await resolveBackend(options.backend, {
    workspaceRoot: SANDBOX_ROOT,
    sharedProcesses: true,
    ...(options.egressResolver === undefined ? {} : { egressResolver: options.egressResolver }),
  });
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

class VercelEmulatorImpl
  extends EmulatorFacade<EmulatorServer, VercelSandboxData>
  implements VercelEmulator, VercelContext
{
  readonly credentials: VercelCredentials;
  readonly pageSize: number;
  readonly baseUrl = VERCEL_API_BASE;
  readonly fetch: typeof globalThis.fetch;
  readonly sandboxes: SandboxLifecycle;
  readonly #preview: Preview;

  constructor(
    server: EmulatorServer,
    backend: ResolvedBackend,
    sandboxes: SandboxLifecycle,
    preview: Preview,
    credentials: VercelCredentials,
    pageSize: number,
  ) {
    super(server, backend, sandboxes.registry);
    this.#preview = preview;
    this.credentials = credentials;
    this.pageSize = pageSize;
    this.sandboxes = sandboxes;
    this.fetch = createEmulatorFetch(
      () => this.server.url,
      (hostname) => findPreviewRoute(sandboxes.registry.all(), hostname) !== undefined,
    );
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

  get url(): string {
    return this.server.url;
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
        networkPolicy: { mode: "allow-all" },
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

  protected override async beforeServerStops(): Promise<void> {
    this.#preview.unroute();
    await this.#preview.proxy.stop();
  }

  protected async shutDown(): Promise<void> {
    await this.sandboxes.close();
  }
}
