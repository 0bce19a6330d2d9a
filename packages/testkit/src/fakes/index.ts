/**
 * @sandport/testkit/fakes: runtimes for tests of code that drives runtimes
 * (the orchestrator, framework bridges): calls recorded, failures scripted,
 * methods removed at will; and a real local runtime for tests that drive one.
 *
 * @module
 */

export { type LocalTestRuntime, localTestRuntime } from "./local-test-runtime.js";
export type { RecordedMethod, RecordedSandbox, ScriptedFailure } from "./recording-runtime.js";
export { providerDown, RecordingRuntime, recordingCapabilities, withoutMethods } from "./recording-runtime.js";
