/**
 * @sandport/testkit: the shared conformance suite every runtime runs, the
 * shared wire-fault suite every adapter runs against its emulator, a
 * recording fake runtime, and the assertions Sandport tests share. Each
 * provider emulator has its own entry, `@sandport/testkit/emulators/<provider>`,
 * so importing this one starts no server code.
 *
 * @module
 */

export * from "./assertions/index.js";
export * from "./conformance/index.js";
export * from "./fakes/index.js";
export * from "./faults/index.js";
