// The fixture of this package's tests: a Modal emulator from the testkit and a
// ModalRuntime pointed at it through the real modal SDK. Await it at the top of
// a test file: the emulator is stopped after the file, its faults cleared after each test.
import { after, afterEach } from "node:test";
import { type ModalEmulator, type ModalEmulatorOptions, startModalEmulator } from "@sandport/testkit/emulators/modal";
import { ModalRuntime } from "../src/modal-runtime.js";
import type { ModalRuntimeOptions } from "../src/options.js";

/** What a test file drives. */
export interface Emulated {
  /** The emulator: faults, request log, foreign sandboxes. */
  readonly emulator: ModalEmulator;
  /** The options the file's runtime was built with. */
  readonly options: ModalRuntimeOptions;
  /** A runtime against it, with the file's options. */
  readonly runtime: ModalRuntime;
  /** Another runtime against the same emulator, `options` over the file's. */
  runtimeWith(options: Partial<ModalRuntimeOptions>): ModalRuntime;
}

/** The runtime options that point at `emulator` (plain TCP tunnels: the emulator terminates no TLS). */
export function emulatorOptions(emulator: ModalEmulator): ModalRuntimeOptions {
  return {
    tokenId: emulator.tokenId,
    tokenSecret: emulator.tokenSecret,
    serverUrl: emulator.url,
    environment: "main",
    workspaceRoot: emulator.workspacePath,
    maxLifetimeMs: 600_000,
    tunnels: "tcp",
  };
}

/** Starts an emulator for one test file and a runtime on it with `options` (an `owner` at least). */
export async function emulated(
  options: Partial<ModalRuntimeOptions>,
  emulatorOptionsGiven?: ModalEmulatorOptions,
): Promise<Emulated> {
  const emulator = await startModalEmulator(emulatorOptionsGiven);
  afterEach(() => emulator.clearFaults());
  after(() => emulator.stop());
  const base = { ...emulatorOptions(emulator), ...options };
  const runtimeWith = (more: Partial<ModalRuntimeOptions>) => new ModalRuntime({ ...base, ...more });
  return { emulator, options: base, runtime: runtimeWith({}), runtimeWith };
}
