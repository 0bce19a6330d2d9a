/**
 * @sandport/testkit/emulators/e2b: a local E2B (control plane and envd) that
 * the real `e2b` SDK runs against. See `startE2BEmulator`.
 *
 * @module
 */

export type * from "../index.js";
export type { E2BTemplateSize } from "./context.js";
export type { E2BConnectionOptions, E2BEmulator, E2BEmulatorOptions } from "./emulator.js";
export { DEFAULT_TEMPLATE_SIZE, startE2BEmulator } from "./emulator.js";
