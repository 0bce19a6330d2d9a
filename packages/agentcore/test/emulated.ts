// The fixture of this package's tests: an AgentCore emulator from the testkit
// and an AgentCoreRuntime pointed at it through the real
// @aws-sdk/client-bedrock-agentcore. Await it at the top of a test file: the
// emulator is stopped after the file, its faults cleared after each test.
//
// The emulator maps the session's working directory onto its backend
// workspace, so the runtime's workspace and state directory lie inside it.
import { after, afterEach } from "node:test";
import {
  type AgentCoreEmulator,
  type AgentCoreEmulatorOptions,
  startAgentCoreEmulator,
} from "@sandport/testkit/emulators/agentcore";
import { AgentCoreRuntime } from "../src/agentcore-runtime.js";
import type { AgentCoreRuntimeOptions } from "../src/options.js";

/** What a test file drives. */
export interface Emulated {
  /** The emulator: faults, request log, foreign sessions. */
  readonly emulator: AgentCoreEmulator;
  /** A runtime against it, with the file's options. */
  readonly runtime: AgentCoreRuntime;
  /** Another runtime against the same emulator, `options` over the file's. */
  runtimeWith(options: Partial<AgentCoreRuntimeOptions>): AgentCoreRuntime;
}

/** The runtime options that point at `emulator`. */
export function emulatorOptions(emulator: AgentCoreEmulator): AgentCoreRuntimeOptions {
  return {
    region: emulator.region,
    endpoint: emulator.endpoint,
    accessKeyId: "AKIDSANDPORTTEST",
    secretAccessKey: "sandport-test-secret",
    workingDirectory: emulator.workingDirectory,
  };
}

/** Starts an emulator for one test file and a runtime on it with `options` (an `owner` at least). */
export async function emulated(
  options: Partial<AgentCoreRuntimeOptions>,
  emulatorSettings?: AgentCoreEmulatorOptions,
): Promise<Emulated> {
  const emulator = await startAgentCoreEmulator(emulatorSettings);
  afterEach(() => emulator.clearFaults());
  after(() => emulator.stop());
  const runtimeWith = (more: Partial<AgentCoreRuntimeOptions>) =>
    new AgentCoreRuntime({ ...emulatorOptions(emulator), ...options, ...more });
  return { emulator, runtime: runtimeWith({}), runtimeWith };
}
