// The fixture of this package's wire tests: a microsandbox emulator from the
// testkit and a MicrosandboxRuntime bound to it through the real microsandbox
// SDK (Node 22: import this from *.node22.test.ts files only). Await it at the
// top of a test file: the emulator is stopped after the file, its faults
// cleared after each test.
import { after, afterEach } from "node:test";
import {
  type MicrosandboxEmulator,
  type MicrosandboxEmulatorOptions,
  startMicrosandboxEmulator,
} from "@sandport/testkit/emulators/microsandbox";
import { MicrosandboxRuntime } from "../src/microsandbox-runtime.js";
import type { MicrosandboxRuntimeOptions } from "../src/options.js";

/** What a test file drives. */
export interface Emulated {
  /** The emulator: faults, request log, foreign sandboxes. */
  readonly emulator: MicrosandboxEmulator;
  /** A runtime against it, with the file's options. */
  readonly runtime: MicrosandboxRuntime;
  /** Another runtime against the same emulator, `options` over the file's. */
  runtimeWith(options: Partial<MicrosandboxRuntimeOptions>): MicrosandboxRuntime;
}

/** The `backend` option that binds a runtime to `emulator`. */
export function cloudOf(emulator: MicrosandboxEmulator): MicrosandboxRuntimeOptions["backend"] {
  return { kind: "cloud", url: emulator.apiUrl, apiKey: emulator.apiKey };
}

/** Starts an emulator for one test file and a runtime on it with `options` (an `owner` at least). */
export async function emulated(
  options: Partial<MicrosandboxRuntimeOptions>,
  emulatorOptions?: MicrosandboxEmulatorOptions,
): Promise<Emulated> {
  const emulator = await startMicrosandboxEmulator(emulatorOptions);
  afterEach(() => emulator.clearFaults());
  after(() => emulator.stop());
  const runtimeWith = (more: Partial<MicrosandboxRuntimeOptions>) =>
    new MicrosandboxRuntime({ backend: cloudOf(emulator), ...options, ...more });
  return { emulator, runtime: runtimeWith({}), runtimeWith };
}
