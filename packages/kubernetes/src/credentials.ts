import type { OptionReader } from "@sandport/core/adapter";

/** An API server and the bearer token to reach it with: the explicit form of the cluster option. */
export interface KubernetesCluster {
  /** The API server's URL (`https://…:6443`). */
  readonly server: string;
  /** A bearer token (a ServiceAccount token, an OIDC id token): sent as `Authorization: Bearer` to the API server only. */
  readonly token: string;
  /**
   * The API server's CA as in a kubeconfig's `certificate-authority-data`:
   * base64 of the PEM. Absent: the system's CAs.
   */
  readonly caData?: string;
}

/**
 * A kubeconfig, as a parsed object or its text. Only what a token login
 * needs is read: the context (`context`, else `current-context`), its
 * cluster's `server` and `certificate-authority-data`, its user's `token`,
 * and its `namespace`. A user that logs in another way (client
 * certificates, `exec` plugins, `tokenFile`, `auth-provider`) is refused:
 * nothing outside the options is run or read. Text is taken as JSON (what
 * `kubectl config view --raw -o json` prints); YAML text is refused, naming
 * the fix: parse it first (`yaml.parse(text)`) and pass the object.
 */
export type KubeconfigInput = string | Readonly<Record<string, unknown>>;

/** The cluster the runtime talks to, after the options were read. */
export interface ResolvedCluster {
  readonly server: string;
  readonly token: string;
  /** The CA's PEM (decoded from base64), when one was given. */
  readonly caPem?: string;
  /** The kubeconfig context's namespace, when a kubeconfig named one. */
  readonly namespace?: string;
}

/** Reads `cluster` or `kubeconfig` (exactly one of them); throws `INVALID_REQUEST`, does no I/O. */
export function resolveCluster(
  read: OptionReader,
  cluster: KubernetesCluster | undefined,
  kubeconfig: KubeconfigInput | undefined,
  contextName: string | undefined,
): ResolvedCluster {
  if ((cluster === undefined) === (kubeconfig === undefined)) {
    throw read.refuse(
      "cluster",
      "or kubeconfig is required, and only one of them (nothing is read from ~/.kube/config, KUBECONFIG or a service-account file)",
    );
  }
  if (cluster !== undefined) {
    if (typeof cluster !== "object" || cluster === null) throw read.refuse("cluster", "must be an object");
    read.known(cluster, ["server", "token", "caData"], "cluster.");
    if (contextName !== undefined) throw read.refuse("context", "names a kubeconfig context: pass kubeconfig with it");
    return {
      server: read.url(cluster.server, "cluster.server") ?? missing(read, "cluster.server"),
      token: read.requiredText(cluster.token, "cluster.token", "the API server is reached with a bearer token"),
      ...pem(read, cluster.caData, "cluster.caData"),
    };
  }
  const config = parsed(read, kubeconfig as KubeconfigInput);
  const name = read.text(contextName, "context") ?? text(config["current-context"]);
  if (name === undefined) throw read.refuse("kubeconfig", "has no current-context: pass context");
  const context = named(config.contexts, name, "context");
  if (context === undefined)
    throw read.refuse("context", `${JSON.stringify(name)} is not in the kubeconfig's contexts`);
  const clusterName = text(context.cluster);
  const userName = text(context.user);
  const clusterEntry = clusterName === undefined ? undefined : named(config.clusters, clusterName, "cluster");
  const user = userName === undefined ? undefined : named(config.users, userName, "user");
  if (clusterEntry === undefined) throw read.refuse("kubeconfig", `context ${name} names no cluster it has`);
  if (user === undefined) throw read.refuse("kubeconfig", `context ${name} names no user it has`);
  const token = text(user.token);
  if (token === undefined) {
    const other = Object.keys(user).filter((key) => key !== "token");
    throw read.refuse(
      "kubeconfig",
      `user ${userName} has no token (it logs in with ${other.join(", ") || "nothing"}); only bearer tokens are read, nothing is run or loaded from files`,
    );
  }
  if (clusterEntry["certificate-authority"] !== undefined && clusterEntry["certificate-authority-data"] === undefined) {
    throw read.refuse(
      "kubeconfig",
      `cluster ${clusterName} names a CA file; give certificate-authority-data instead (no file is read)`,
    );
  }
  const namespace = text(context.namespace);
  return {
    server: read.url(clusterEntry.server, "kubeconfig cluster server") ?? missing(read, "kubeconfig cluster server"),
    token,
    ...pem(read, clusterEntry["certificate-authority-data"], "kubeconfig certificate-authority-data"),
    ...(namespace === undefined ? {} : { namespace }),
  };
}

function parsed(read: OptionReader, kubeconfig: KubeconfigInput): Record<string, unknown> {
  if (typeof kubeconfig === "object" && kubeconfig !== null && !Array.isArray(kubeconfig)) {
    return kubeconfig as Record<string, unknown>;
  }
  if (typeof kubeconfig !== "string") throw read.refuse("kubeconfig", "must be an object or its JSON text");
  try {
    const value: unknown = JSON.parse(kubeconfig);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Refused below.
  }
  throw read.refuse(
    "kubeconfig",
    "text must be JSON (kubectl config view --raw -o json); parse YAML first (yaml.parse) and pass the object",
  );
}

/** The inner object of the entry called `name` in a kubeconfig list (`contexts`, `clusters`, `users`). */
function named(list: unknown, name: string, field: string): Record<string, unknown> | undefined {
  if (!Array.isArray(list)) return undefined;
  const entry = list.find((item) => (item as { name?: unknown })?.name === name) as Record<string, unknown> | undefined;
  const inner = entry?.[field];
  return typeof inner === "object" && inner !== null ? (inner as Record<string, unknown>) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function pem(read: OptionReader, value: unknown, field: string): { caPem?: string } {
  const data = read.text(value, field);
  if (data === undefined) return {};
  const decoded = Buffer.from(data, "base64").toString("utf8");
  if (!decoded.includes("-----BEGIN CERTIFICATE-----")) {
    throw read.refuse(field, "must be base64 of a PEM certificate (as certificate-authority-data is)");
  }
  return { caPem: decoded };
}

function missing(read: OptionReader, field: string): never {
  throw read.refuse(field, "is required");
}
