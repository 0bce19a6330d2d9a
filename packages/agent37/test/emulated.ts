// The fixture of this package's tests: an Agent37 emulator from the testkit
// and an Agent37Runtime pointed at it over real fetch. Await it at the top of
// a test file: the emulator is stopped after the file, its faults cleared
// after each test.
import { after, afterEach } from "node:test";
import {
  type Agent37Emulator,
  type Agent37EmulatorOptions,
  startAgent37Emulator,
} from "@sandport/testkit/emulators/agent37";
import { Agent37Runtime } from "../src/agent37-runtime.js";
import type { Agent37RuntimeOptions } from "../src/options.js";

/** What a test file drives. */
export interface Emulated {
  /** The emulator: faults, request log, foreign instances. */
  readonly emulator: Agent37Emulator;
  /** A runtime against it, with the file's options. */
  readonly runtime: Agent37Runtime;
  /** Another runtime against the same emulator, `options` over the file's. */
  runtimeWith(options: Partial<Agent37RuntimeOptions>): Agent37Runtime;
}

/** The runtime options that point at `emulator`. */
export function emulatorOptions(emulator: Agent37Emulator): Agent37RuntimeOptions {
  return { apiKey: emulator.apiKey, baseUrl: emulator.baseUrl };
}

/** Starts an emulator for one test file and a runtime on it with `options` (an `owner` at least). */
export async function emulated(
  options: Partial<Agent37RuntimeOptions>,
  emulatorSettings?: Agent37EmulatorOptions,
): Promise<Emulated> {
  const emulator = await startAgent37Emulator(emulatorSettings);
  afterEach(() => emulator.clearFaults());
  after(() => emulator.stop());
  const runtimeWith = (more: Partial<Agent37RuntimeOptions>) =>
    new Agent37Runtime({ ...emulatorOptions(emulator), ...options, ...more });
  return { emulator, runtime: runtimeWith({}), runtimeWith };
}
