/**
 * @sandport/testkit/emulators/microsandbox: a local microsandbox cloud (the
 * `/v1/sandboxes` control plane and the agent relay) that the real
 * `microsandbox` SDK (0.6.x, Node >= 22) runs against. See
 * `startMicrosandboxEmulator`.
 *
 * @module
 */

export type * from "../index.js";
export type { MicrosandboxAgentOperation } from "./context.js";
export type {
  MicrosandboxBackendConfig,
  MicrosandboxEmulator,
  MicrosandboxEmulatorOptions,
} from "./emulator.js";
export { startMicrosandboxEmulator } from "./emulator.js";
