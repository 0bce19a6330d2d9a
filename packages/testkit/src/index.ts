/**
 * @sandport/testkit: the shared conformance suite every runtime runs, and
 * wire-compatible provider emulators that the real vendor SDKs talk to.
 *
 * @module
 */

export * from "./conformance/index.js";
export * from "./emulators/index.js";
