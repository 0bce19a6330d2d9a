/**
 * @sandport/testkit/emulators/kubernetes: a local Kubernetes API server with
 * kubernetes-sigs/agent-sandbox (SandboxClaim, Sandbox, SandboxTemplate,
 * SandboxWarmPool, pods and pod exec) and its sandbox-router in front of
 * sandboxd, that `@sandport/kubernetes` runs against over real HTTP,
 * WebSocket and gRPC. See `startKubernetesEmulator`.
 *
 * @module
 */

export type * from "../index.js";
export type { KubernetesEmulator, KubernetesEmulatorOptions } from "./emulator.js";
export { startKubernetesEmulator } from "./emulator.js";
export { kubernetesEmulatorSkipReason } from "./pod-workspace.js";
export type { KubernetesTemplateSeed, KubernetesWarmPoolSeed } from "./seeds.js";
