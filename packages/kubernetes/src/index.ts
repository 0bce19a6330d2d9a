/**
 * @sandport/kubernetes: the Sandport runtime for Kubernetes clusters
 * running kubernetes-sigs/agent-sandbox. It speaks the Kubernetes API,
 * sandboxd (gRPC and REST through the sandbox-router) and the pod exec
 * WebSocket itself, and depends on nothing but `@sandport/core`.
 *
 * @module
 */

export { type KubernetesCapabilities, kubernetesCapabilities } from "./capabilities.js";
export type { KubeconfigInput, KubernetesCluster } from "./credentials.js";
export type { KubernetesHandle } from "./handle.js";
export { KubernetesRuntime } from "./kubernetes-runtime.js";
export type { DataPlane, KubernetesRuntimeOptions, LaunchEnvPolicy } from "./options.js";
export { DEFAULT_KUBERNETES_TIMEOUTS } from "./options.js";
