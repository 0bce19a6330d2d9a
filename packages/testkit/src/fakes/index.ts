/**
 * @sandport/testkit/fakes: runtimes for tests of code that drives runtimes
 * (the orchestrator, framework bridges): calls recorded, failures scripted,
 * methods removed at will; a real local runtime (and sandbox) for such
 * tests; and the steps of a scripted AI SDK mock model that calls tools.
 *
 * @module
 */

export type { LocalTestRuntime, LocalTestRuntimeOptions, LocalTestSandbox } from "./local-test-runtime.js";
export { localTestRuntime, localTestSandbox, namespacesSkipReason } from "./local-test-runtime.js";
export type { ScriptedToolCall } from "./mock-model-steps.js";
export { mockModelSteps } from "./mock-model-steps.js";
export type { RecordedMethod, RecordedSandbox, ScriptedFailure } from "./recording-runtime.js";
export { providerDown, RecordingRuntime, recordingCapabilities, withoutMethods } from "./recording-runtime.js";
