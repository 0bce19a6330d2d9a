/**
 * @sandport/testkit/emulators/agent37: a local Agent37 (the hosting plane and
 * each instance's own URL) that `@sandport/agent37` runs against over real
 * `fetch`. See `startAgent37Emulator`.
 *
 * @module
 */

export type * from "../index.js";
export type { Agent37Emulator, Agent37EmulatorOptions } from "./emulator.js";
export { startAgent37Emulator } from "./emulator.js";
