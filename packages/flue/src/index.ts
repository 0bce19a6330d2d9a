/**
 * @sandport/flue: any Sandport runtime as a Flue sandbox. `@flue/runtime` is
 * an optional peer, loaded on first use (it needs Node 22.19+).
 *
 * @module
 */

export { SandportFlueDriver } from "./driver.js";
export { FLUE_INSTANCE_LABEL, type SandportSandboxOptions, sandportSandbox } from "./factory.js";
