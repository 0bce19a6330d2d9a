/**
 * A local Kubernetes cluster with kubernetes-sigs/agent-sandbox, for
 * `@sandport/kubernetes`: the API server (the agent-sandbox kinds and pods,
 * list/watch with resourceVersions, bearer-token auth, pod exec over
 * WebSocket) on one port, the sandbox-router (sandboxd's REST and gRPC
 * APIs) on another. Every pod is a sandbox on a backend runtime, so
 * commands and files are real. What it serves and how it differs from a
 * cluster, with sources: README.md here.
 *
 * @module
 */

import type { SandboxRuntime } from "@sandport/core";
import { type EmulatorBackend, type ResolvedBackend, resolveBackend } from "../harness/backend.js";
import { EmulatorFacade, type FacadeServer } from "../harness/emulator-facade.js";
import { FaultInjector } from "../harness/faults.js";
import { EmulatorServer } from "../harness/http-server.js";
import { RequestLog } from "../harness/request-log.js";
import { SandboxRegistry } from "../harness/sandbox-registry.js";
import type { EmulatedSandboxSummary, ProviderEmulator } from "../harness/types.js";
import { registerApiRoutes, statusErrorReply } from "./api-server.js";
import { ClaimController } from "./claims.js";
import { findCondition } from "./conditions.js";
import { GrpcServer } from "./grpc-server.js";
import { SANDBOXES, TEMPLATES, WARM_POOLS } from "./kinds.js";
import { ObjectStore } from "./object-store.js";
import { servePodExec } from "./pod-exec.js";
import { kubernetesEmulatorSkipReason, prepareWorkspaceMountPoint } from "./pod-workspace.js";
import { detailErrorReply, RouterFront, registerProcessService, registerRouterRoutes } from "./sandbox-router.js";
import { SandboxController } from "./sandboxes.js";
import {
  DEFAULT_TEMPLATES,
  DEFAULT_WARM_POOLS,
  type KubernetesTemplateSeed,
  type KubernetesWarmPoolSeed,
  templateBody,
  warmPoolBody,
} from "./seeds.js";
import { KubeApiError } from "./status.js";

/** Options of {@link startKubernetesEmulator}. */
export interface KubernetesEmulatorOptions {
  /** Where pods run. Default: a `LocalRuntime` in a temporary directory, workspace `/workspace`. */
  readonly backend?: EmulatorBackend;
  /** The bearer token the API server accepts. Default `emulator-token`. */
  readonly token?: string;
  /** The namespace seeds go in. Default `default`. */
  readonly namespace?: string;
  /** SandboxTemplates to seed. Default: `sandboxd` (with sandboxd) and `plain` (without). */
  readonly templates?: readonly KubernetesTemplateSeed[];
  /** SandboxWarmPools to seed; started is resolved once their Sandboxes are Ready. Default: `sandboxd-pool`, `plain-pool`, one each. */
  readonly warmPools?: readonly KubernetesWarmPoolSeed[];
}

/** A running Kubernetes emulator. */
export interface KubernetesEmulator extends ProviderEmulator {
  /** The API server's base URL (plain HTTP). Same as `url`. */
  readonly apiServerUrl: string;
  /** The sandbox-router's base URL: HTTP/1.1 and gRPC over h2c on one port. */
  readonly routerUrl: string;
  /** The accepted bearer token. */
  readonly token: string;
  /** The seeds' namespace. */
  readonly namespace: string;
  /** Always undefined: the API server speaks plain HTTP. */
  readonly caData: undefined;
  /** A kubeconfig (as a parsed object) for the API server with the token. */
  readonly kubeconfig: Record<string, unknown>;
  /** The runtime the pods run on. */
  readonly backend: SandboxRuntime;
  /** Same as `countRequests`. */
  requestCount(route?: string | RegExp): number;
  /** Forget the watch history: every resourceVersion handed out so far is too old to watch from (410). */
  compactHistory(): void;
  /** Wait until every pod start, suspend, resume and deletion in progress has settled. */
  settle(): Promise<void>;
  /** Same as `stop`. */
  close(): Promise<void>;
}

/** Start a Kubernetes emulator on 127.0.0.1 (two ephemeral ports). */
export async function startKubernetesEmulator(options: KubernetesEmulatorOptions = {}): Promise<KubernetesEmulator> {
  const namespace = options.namespace ?? "default";
  const token = options.token ?? "emulator-token";
  const backend = await resolveBackend(options.backend, { workspaceRoot: "/workspace", sharedProcesses: true });
  if (backend.hostPaths) await givePodsTheirWorkspace(backend);
  const log = new RequestLog();
  const faults = new FaultInjector();
  const store = new ObjectStore();
  const sandboxes = new SandboxController(store, backend.runtime, backend.hostPaths);
  const claims = new ClaimController(store, sandboxes);
  const grpc = new GrpcServer(log, faults);
  const started = Date.now();
  let api: EmulatorServer | undefined;
  let routerHttp: EmulatorServer | undefined;
  let front: RouterFront | undefined;
  try {
    api = await EmulatorServer.start({
      log,
      faults,
      errorReply: statusErrorReply,
      answerUnknownRoute: (exchange) =>
        statusErrorReply(exchange, 404, "the server could not find the requested resource"),
    });
    routerHttp = await EmulatorServer.start({ log, faults, errorReply: detailErrorReply });
    front = await RouterFront.start(Number(new URL(routerHttp.url).port), await grpc.listen());
  } catch (error) {
    grpc.stop();
    await Promise.all([api?.stop(), routerHttp?.stop()]);
    await backend.dispose();
    throw error;
  }
  const routerParts = { store, podRuntime: (ns: string, name: string) => sandboxes.podRuntime(ns, name), started };
  registerApiRoutes(api, {
    token,
    store,
    claims,
    sandboxes,
    exec: (exchange, ns, name) => servePodExec(exchange, sandboxes.podRuntime(ns, name), name),
  });
  registerRouterRoutes(routerHttp, routerParts);
  registerProcessService(grpc, routerParts);
  const servers = { api, routerHttp, front, grpc };
  const facadeServer: FacadeServer = {
    log,
    faults,
    stop: async () => {
      grpc.stop();
      await Promise.all([servers.front.stop(), servers.api.stop(), servers.routerHttp.stop()]);
    },
  };
  const emulator = new KubernetesEmulatorImpl(facadeServer, backend, {
    apiServerUrl: api.url,
    routerUrl: front.url,
    token,
    namespace,
    store,
    sandboxes,
    claims,
  });
  try {
    for (const seed of options.templates ?? DEFAULT_TEMPLATES) {
      const ns = seed.namespace ?? namespace;
      store.create(TEMPLATES, templateBody(seed, ns) as never);
    }
    for (const seed of options.warmPools ?? DEFAULT_WARM_POOLS) {
      const ns = seed.namespace ?? namespace;
      store.create(WARM_POOLS, warmPoolBody(seed, ns) as never);
      claims.fillPool(ns, seed.name);
    }
    await sandboxes.settle();
  } catch (error) {
    await emulator.stop();
    throw error;
  }
  return emulator;
}

interface Parts {
  readonly apiServerUrl: string;
  readonly routerUrl: string;
  readonly token: string;
  readonly namespace: string;
  readonly store: ObjectStore;
  readonly sandboxes: SandboxController;
  readonly claims: ClaimController;
}

class KubernetesEmulatorImpl extends EmulatorFacade<FacadeServer, never> implements KubernetesEmulator {
  readonly apiServerUrl: string;
  readonly routerUrl: string;
  readonly token: string;
  readonly namespace: string;
  readonly caData = undefined;
  readonly #parts: Parts;

  constructor(server: FacadeServer, backend: ResolvedBackend, parts: Parts) {
    super(server, backend, new SandboxRegistry<never>());
    this.#parts = parts;
    this.apiServerUrl = parts.apiServerUrl;
    this.routerUrl = parts.routerUrl;
    this.token = parts.token;
    this.namespace = parts.namespace;
  }

  get url(): string {
    return this.apiServerUrl;
  }

  get kubeconfig(): Record<string, unknown> {
    return {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "emulator", cluster: { server: this.apiServerUrl } }],
      users: [{ name: "emulator", user: { token: this.token } }],
      contexts: [{ name: "emulator", context: { cluster: "emulator", user: "emulator", namespace: this.namespace } }],
      "current-context": "emulator",
    };
  }

  requestCount(route?: string | RegExp): number {
    return this.countRequests(route);
  }

  compactHistory(): void {
    this.#parts.store.compact();
  }

  async settle(): Promise<void> {
    await this.#parts.claims.settle();
    await this.#parts.sandboxes.settle();
  }

  close(): Promise<void> {
    return this.stop();
  }

  override liveSandboxes(): EmulatedSandboxSummary[] {
    return this.#parts.store.list(SANDBOXES).map((sandbox) => {
      const ready = findCondition(sandbox.status, "Ready");
      const suspended = findCondition(sandbox.status, "Suspended")?.status === "True";
      return {
        id: sandbox.metadata.name,
        metadata: { ...(sandbox.metadata.labels ?? {}) },
        foreign: sandbox.metadata.annotations?.["sandport.emulator/foreign"] === "true",
        state: suspended ? "suspended" : ready?.status === "True" ? "running" : "pending",
      };
    });
  }

  async seedForeignSandbox(metadata: Record<string, string> = {}): Promise<string> {
    const template = this.#parts.store.list(TEMPLATES, this.namespace)[0];
    if (template === undefined) throw new KubeApiError(404, "NotFound", "no SandboxTemplate to seed from");
    const sandbox = this.#parts.sandboxes.create({
      namespace: this.namespace,
      generateName: "foreign-",
      labels: { ...metadata },
      annotations: { "sandport.emulator/foreign": "true" },
      podTemplate: structuredClone((template.spec?.podTemplate ?? {}) as Record<string, unknown>),
    });
    await this.#parts.sandboxes.settle();
    return sandbox.metadata.name;
  }

  protected override async shutDown(): Promise<void> {
    this.#parts.claims.shutDown();
    await this.#parts.sandboxes.shutDown();
  }
}

/**
 * A backend of host processes: each pod's commands get a mount namespace
 * with its workspace at `/workspace` (see `inPodMount`), which takes root.
 * Elsewhere the backend is released and the start refused, saying why.
 */
async function givePodsTheirWorkspace(backend: ResolvedBackend): Promise<void> {
  const reason = await kubernetesEmulatorSkipReason();
  if (reason === undefined) return prepareWorkspaceMountPoint();
  await backend.dispose();
  throw new Error(`the Kubernetes emulator cannot run here: ${reason}`);
}
