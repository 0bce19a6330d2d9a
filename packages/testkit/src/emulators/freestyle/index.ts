/**
 * @sandport/testkit/emulators/freestyle: a local Freestyle (the `/v5` API and
 * the legacy `/v1` VM routes) that the real `freestyle` SDK (0.2.x) and the
 * legacy `freestyle-sandboxes` SDK (0.1.x) run against. See
 * `startFreestyleEmulator`.
 *
 * @module
 */

export type * from "../index.js";
export type {
  FreestyleConnectionOptions,
  FreestyleEmulator,
  FreestyleEmulatorOptions,
} from "./emulator.js";
export { startFreestyleEmulator } from "./emulator.js";
