/**
 * @sandport/testkit/emulators/vercel: a local Vercel Sandbox API that the
 * real `@vercel/sandbox` SDK (3.0 to 3.5) runs against through an injected
 * `fetch`. See `startVercelEmulator`.
 *
 * @module
 */

export type * from "../index.js";
export type {
  VercelConnectionOptions,
  VercelCredentials,
  VercelEmulator,
  VercelEmulatorOptions,
} from "./emulator.js";
export { startVercelEmulator } from "./emulator.js";
