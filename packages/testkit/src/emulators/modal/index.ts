/**
 * @sandport/testkit/emulators/modal: local gRPC servers for Modal's control
 * plane and task command router that the real `modal` SDK (0.11.x) runs
 * against. See `startModalEmulator`.
 *
 * @module
 */

export type * from "../index.js";
export type { ModalConnectionOptions, ModalEmulator, ModalEmulatorOptions } from "./emulator.js";
export { startModalEmulator } from "./emulator.js";
export type { ModalRequestRecord } from "./request-record.js";
