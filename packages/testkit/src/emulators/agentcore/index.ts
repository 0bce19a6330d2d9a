/**
 * @sandport/testkit/emulators/agentcore: a local AWS Bedrock AgentCore Code
 * Interpreter data plane that the real `@aws-sdk/client-bedrock-agentcore`
 * runs against (sessions, and `InvokeCodeInterpreter` as an event stream). See
 * `startAgentCoreEmulator`.
 *
 * @module
 */

export type * from "../index.js";
export type { AgentCoreEmulator, AgentCoreEmulatorOptions } from "./emulator.js";
export { SYSTEM_INTERPRETER, startAgentCoreEmulator } from "./emulator.js";
