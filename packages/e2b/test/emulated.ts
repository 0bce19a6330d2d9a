// The fixture of this package's tests: an E2B emulator from the testkit and an
// E2BRuntime pointed at it through the real e2b SDK. Await it at the top of a
// test file: the emulator is stopped after the file, its faults cleared after each test.
import { after, afterEach } from "node:test";
import { type E2BEmulator, type E2BEmulatorOptions, startE2BEmulator } from "@sandport/testkit/emulators/e2b";
import { E2BRuntime } from "../src/e2b-runtime.js";
import type { E2BRuntimeOptions } from "../src/options.js";

/** What a test file drives. */
export interface Emulated {
  /** The emulator: faults, request log, foreign sandboxes. */
  readonly emulator: E2BEmulator;
  /** A runtime against it, with the file's options. */
  readonly runtime: E2BRuntime;
  /** Another runtime against the same emulator, `options` over the file's. */
  runtimeWith(options: Partial<E2BRuntimeOptions>): E2BRuntime;
}

/** Starts an emulator for one test file and a runtime on it with `options` (an `owner` at least). */
export async function emulated(
  options: Partial<E2BRuntimeOptions>,
  emulatorOptions?: E2BEmulatorOptions,
): Promise<Emulated> {
  const emulator = await startE2BEmulator(emulatorOptions);
  afterEach(() => emulator.clearFaults());
  after(() => emulator.stop());
  // `debug` is an SDK option, not one of E2BRuntime's (which always sends `debug: false` itself).
  const { debug: _debug, ...connection } = emulator.sdkOptions;
  const runtimeWith = (more: Partial<E2BRuntimeOptions>) => new E2BRuntime({ ...connection, ...options, ...more });
  return { emulator, runtime: runtimeWith({}), runtimeWith };
}
