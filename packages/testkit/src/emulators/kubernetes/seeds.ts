/**
 * The SandboxTemplates and SandboxWarmPools a test seeds the cluster with,
 * and how they look on the wire.
 *
 * @module
 */

/** A SandboxTemplate to seed. */
export interface KubernetesTemplateSeed {
  readonly name: string;
  /** Namespace. Default: the emulator's. */
  readonly namespace?: string;
  /** True: the pod runs sandboxd (a container named `sandboxd`, ports 8080 and 9090). Default true. */
  readonly sandboxd?: boolean;
  /** Environment of the pod's first container. */
  readonly env?: Readonly<Record<string, string>>;
  /** `spec.envVarsInjectionPolicy`. Default `Allowed` (upstream's default is `Disallowed`). */
  readonly envVarsInjectionPolicy?: "Allowed" | "Overrides" | "Disallowed";
}

/** A SandboxWarmPool to seed. */
export interface KubernetesWarmPoolSeed {
  readonly name: string;
  /** The SandboxTemplate's name. */
  readonly template: string;
  /** Namespace. Default: the emulator's. */
  readonly namespace?: string;
  /** Warm Sandboxes kept ready. Default 1. */
  readonly replicas?: number;
}

/** The default seeds: a sandboxd template and a plain one, a pool of one for each. */
export const DEFAULT_TEMPLATES: readonly KubernetesTemplateSeed[] = [
  { name: "sandboxd", sandboxd: true },
  { name: "plain", sandboxd: false },
];

/** The default warm pools. */
export const DEFAULT_WARM_POOLS: readonly KubernetesWarmPoolSeed[] = [
  { name: "sandboxd-pool", template: "sandboxd", replicas: 1 },
  { name: "plain-pool", template: "plain", replicas: 1 },
];

/** The SandboxTemplate object body for a seed. */
export function templateBody(seed: KubernetesTemplateSeed, namespace: string): Record<string, unknown> {
  const env = Object.entries(seed.env ?? {}).map(([name, value]) => ({ name, value }));
  const main = {
    name: seed.sandboxd === false ? "main" : "sandboxd",
    image:
      seed.sandboxd === false
        ? "python:3.12-slim"
        : "us-central1-docker.pkg.dev/k8s-staging-images/agent-sandbox/sandboxd:latest-main",
    ...(env.length > 0 ? { env } : {}),
    ...(seed.sandboxd === false
      ? { command: ["sleep", "infinity"] }
      : {
          ports: [{ containerPort: 8080 }, { containerPort: 9090 }],
          readinessProbe: { httpGet: { path: "/v1/health", port: 8080 } },
        }),
    volumeMounts: [{ name: "workspace", mountPath: "/workspace" }],
  };
  return {
    metadata: { name: seed.name, namespace },
    spec: {
      podTemplate: {
        metadata: { labels: { "sandbox-template": seed.name } },
        spec: {
          automountServiceAccountToken: false,
          containers: [main],
          volumes: [{ name: "workspace", emptyDir: {} }],
        },
      },
      envVarsInjectionPolicy: seed.envVarsInjectionPolicy ?? "Allowed",
    },
  };
}

/** The SandboxWarmPool object body for a seed. */
export function warmPoolBody(seed: KubernetesWarmPoolSeed, namespace: string): Record<string, unknown> {
  return {
    metadata: { name: seed.name, namespace },
    spec: { replicas: seed.replicas ?? 1, sandboxTemplateRef: { name: seed.template } },
  };
}
