import { keyList, type OperationTimeouts } from "@sandport/core";
import {
  OptionReader,
  REMOTE_RUNTIME_OPTION_SHAPE,
  type RemoteRuntimeExtras,
  type RemoteRuntimeOptions,
  type ResolvedRemote,
  remoteTimeouts,
} from "@sandport/core/adapter";
import { type KubeconfigInput, type KubernetesCluster, type ResolvedCluster, resolveCluster } from "./credentials.js";
import { PROVIDER } from "./handle.js";

/** How commands reach a pod: sandboxd's process service through the router, or the pod `exec` subresource. */
export type DataPlane = "sandboxd" | "pod-exec";

/**
 * What a launch with `env` does. agent-sandbox gives env only to a sandbox
 * made for the claim, never to a warm one: a claim with `env` is a cold
 * start from the pool's template (seconds, not milliseconds).
 * `"refuse"` refuses a launch with env (`UNSUPPORTED`), so every launch is
 * warm when the pool has a sandbox ready; `"cold-start"` takes it, cold.
 */
export type LaunchEnvPolicy = "refuse" | "cold-start";

/**
 * Options of {@link KubernetesRuntime}. Nothing is read from the
 * environment or a file (`~/.kube/config`, `KUBECONFIG`, the in-cluster
 * service-account token): the cluster comes from `cluster` or
 * `kubeconfig`, exactly one. The common and remote options mean what they
 * mean in every runtime; there is no `sdk` option (no client library is
 * used). `network` says what the pool's template gives (its NetworkPolicy):
 * `true` (default) open egress, `false` none; a launch may ask only for that.
 */
export interface KubernetesRuntimeOptions
  extends Omit<RemoteRuntimeOptions<never>, "sdk">,
    Pick<RemoteRuntimeExtras, "workspaceRoot"> {
  /** The API server, a bearer token and its CA. Or `kubeconfig`. */
  readonly cluster?: KubernetesCluster;
  /** A kubeconfig object (or its JSON text) whose user has a token. Or `cluster`. */
  readonly kubeconfig?: KubeconfigInput;
  /** The kubeconfig context to use. Default: its `current-context`. */
  readonly context?: string;
  /** Namespace of the claims. Default: the kubeconfig context's, else `default`. */
  readonly namespace?: string;
  /** The `SandboxWarmPool` every launch claims from (its template is the cold start's). Required. */
  readonly warmPool: string;
  /**
   * The sandbox-router's URL (a Gateway, a Service URL, a port-forward):
   * sandboxd's file and process services and `portEndpoint` go through it,
   * with the sandbox named in `X-Sandbox-*` headers. Required for the
   * `sandboxd` data plane and for ports.
   */
  readonly routerUrl?: string;
  /** `"sandboxd"` (default: the template runs sandboxd) or `"pod-exec"` (any template; commands over the exec WebSocket). */
  readonly dataPlane?: DataPlane;
  /** What a launch with `env` does: `"refuse"` (default) or `"cold-start"`. */
  readonly launchEnv?: LaunchEnvPolicy;
  /** The container commands run in with `pod-exec`. Default: the pod's first container that is not `sandboxd`. */
  readonly container?: string;
  /** Absolute workspace directory inside each pod: sandboxd's root. Default `/workspace`. */
  readonly workspaceRoot?: string;
  /**
   * Absolute directory inside each pod where async commands keep their
   * records (start, exit) and output. Default `/tmp/sandport/commands`:
   * outside the workspace, writable in common images, and gone with the pod
   * (a suspended sandbox's async commands end with its pod).
   */
  readonly commandStateDirectory?: string;
}

/** The remote options every runtime shares, but `sdk`. */
const { sdk: _noSdk, ...SHARED_OPTION_SHAPE } = REMOTE_RUNTIME_OPTION_SHAPE;

/** Every option `KubernetesRuntime` takes; any other is refused, naming the nearest known one. */
export const KUBERNETES_OPTION_KEYS = keyList<KubernetesRuntimeOptions>({
  ...SHARED_OPTION_SHAPE,
  cluster: true,
  kubeconfig: true,
  context: true,
  namespace: true,
  warmPool: true,
  routerUrl: true,
  dataPlane: true,
  launchEnv: true,
  container: true,
  workspaceRoot: true,
  commandStateDirectory: true,
});

/** Options after defaults and validation. */
export type ResolvedOptions = ResolvedRemote<typeof KUBERNETES_DEFAULTS> & {
  readonly cluster: ResolvedCluster;
  readonly namespace: string;
  readonly warmPool: string;
  readonly routerUrl: string | undefined;
  readonly dataPlane: DataPlane;
  readonly launchEnv: LaunchEnvPolicy;
  readonly container: string | undefined;
  readonly commandStateDirectory: string;
};

/** Default per-call deadlines: a cold start pulls an image and schedules a pod, so launches get 5 minutes. */
export const DEFAULT_KUBERNETES_TIMEOUTS: OperationTimeouts = remoteTimeouts({
  launchMs: 300_000,
  lifecycleMs: 180_000,
});

const KUBERNETES_DEFAULTS = {
  timeouts: DEFAULT_KUBERNETES_TIMEOUTS,
  network: true,
  workspaceRoot: "/workspace",
} as const;

/** DNS-1123 label: a namespace, a pool name. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** DNS-1123 subdomain: an object name. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** Validates options and fills defaults. Throws `INVALID_REQUEST`; does no I/O. */
export function resolveOptions(given: KubernetesRuntimeOptions): ResolvedOptions {
  const read = new OptionReader("KubernetesRuntime", PROVIDER);
  const options = read.object(given, KUBERNETES_OPTION_KEYS);
  const common = read.remote(options, KUBERNETES_DEFAULTS);
  const cluster = resolveCluster(read, options.cluster, options.kubeconfig, options.context);
  const namespace = read.text(options.namespace, "namespace") ?? cluster.namespace ?? "default";
  if (!DNS_LABEL.test(namespace)) throw read.refuse("namespace", "must be a DNS-1123 label");
  const warmPool = read.requiredText(options.warmPool, "warmPool", "every launch claims from a SandboxWarmPool");
  if (!DNS_SUBDOMAIN.test(warmPool)) throw read.refuse("warmPool", "must be a Kubernetes object name");
  const dataPlane = read.text(options.dataPlane, "dataPlane") ?? "sandboxd";
  if (dataPlane !== "sandboxd" && dataPlane !== "pod-exec") {
    throw read.refuse("dataPlane", 'must be "sandboxd" or "pod-exec"');
  }
  const routerUrl = read.url(options.routerUrl, "routerUrl");
  if (dataPlane === "sandboxd" && routerUrl === undefined) {
    throw read.refuse("routerUrl", "is required with dataPlane sandboxd (sandboxd is reached through the router)");
  }
  const launchEnv = read.text(options.launchEnv, "launchEnv") ?? "refuse";
  if (launchEnv !== "refuse" && launchEnv !== "cold-start") {
    throw read.refuse("launchEnv", 'must be "refuse" or "cold-start"');
  }
  const container = read.text(options.container, "container");
  if (container !== undefined && !DNS_LABEL.test(container)) throw read.refuse("container", "must be a DNS-1123 label");
  const commandStateDirectory =
    read.absolutePath(options.commandStateDirectory, "commandStateDirectory") ?? "/tmp/sandport/commands";
  return { ...common, cluster, namespace, warmPool, routerUrl, dataPlane, launchEnv, container, commandStateDirectory };
}
