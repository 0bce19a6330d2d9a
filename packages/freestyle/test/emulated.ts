// The fixture of this package's tests: a Freestyle emulator from the testkit
// and a FreestyleRuntime pointed at it through the real freestyle SDK. Await it
// at the top of a test file: the emulator is stopped after the file, its faults
// cleared after each test.
//
// The emulator maps one VM directory onto its backend workspace, and starts
// commands there: mapping the VM's home directory (/root) makes it behave as a
// VM does, with the runtime's workspace (/root/workspace) and state directory
// (/root/.sandport) inside it. Its default backend keeps a VM off the network
// only where it runs one namespace set per sandbox (as root; elsewhere it is
// LocalRuntime with isolation "none"), so these runtimes launch with
// network: true unless a test says otherwise.
import { after, afterEach } from "node:test";
import {
  type FreestyleEmulator,
  type FreestyleEmulatorOptions,
  startFreestyleEmulator,
} from "@sandport/testkit/emulators/freestyle";
import { FreestyleRuntime } from "../src/freestyle-runtime.js";
import type { FreestyleRuntimeOptions } from "../src/options.js";

/** The VM home directory the emulator maps onto its backend workspace. */
export const HOME = "/root";

/** What a test file drives. */
export interface Emulated {
  /** The emulator: faults, request log, foreign VMs. */
  readonly emulator: FreestyleEmulator;
  /** A runtime against it, with the file's options. */
  readonly runtime: FreestyleRuntime;
  /** Another runtime against the same emulator, `options` over the file's. */
  runtimeWith(options: Partial<FreestyleRuntimeOptions>): FreestyleRuntime;
}

/** The runtime options that point at `emulator`. */
export function emulatorOptions(emulator: FreestyleEmulator): FreestyleRuntimeOptions {
  return { apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, fetch: emulator.sdkOptions.fetch, network: true };
}

/** Starts an emulator for one test file and a runtime on it with `options` (an `owner` at least). */
export async function emulated(
  options: Partial<FreestyleRuntimeOptions>,
  emulatorSettings?: FreestyleEmulatorOptions,
): Promise<Emulated> {
  const emulator = await startFreestyleEmulator({ workspaceDirectory: HOME, ...emulatorSettings });
  afterEach(() => emulator.clearFaults());
  after(() => emulator.stop());
  const runtimeWith = (more: Partial<FreestyleRuntimeOptions>) =>
    new FreestyleRuntime({ ...emulatorOptions(emulator), ...options, ...more });
  return { emulator, runtime: runtimeWith({}), runtimeWith };
}
