/**
 * @sandport/testkit/emulators/daytona: a local Daytona (the REST API under
 * `/api` and the toolbox under `/toolbox/<id>`) that the real
 * `@daytonaio/sdk` (0.180 to 0.218) and `@daytona/sdk` (0.216) run against.
 * See `startDaytonaEmulator`.
 *
 * @module
 */

export type * from "../index.js";
export type { DaytonaConnectionOptions, DaytonaEmulator, DaytonaEmulatorOptions } from "./emulator.js";
export { startDaytonaEmulator } from "./emulator.js";
