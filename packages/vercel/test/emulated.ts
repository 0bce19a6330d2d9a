// The fixture of this package's wire tests: a Vercel emulator from the testkit and a
// VercelRuntime pointed at it through the real @vercel/sandbox SDK (3.5 by default,
// or the 3.0 installed as vercel-sandbox-3.0). Await it at the top of a test file: the
// emulator is stopped after the file, its faults cleared after each test.
import { after, afterEach } from "node:test";
import {
  startVercelEmulator,
  type VercelEmulator,
  type VercelEmulatorOptions,
} from "@sandport/testkit/emulators/vercel";
import type { VercelSdkModule } from "../src/internal/sdk-types.js";
import type { VercelRuntimeOptions } from "../src/options.js";
import { VercelRuntime } from "../src/vercel-runtime.js";

/** The SDK versions the wire tests and the conformance suite run with: the newest and the oldest in range. */
export const SDK_VERSIONS = {
  "3.5": () => import("@vercel/sandbox") as Promise<VercelSdkModule>,
  "3.0": () => import("vercel-sandbox-3.0") as Promise<VercelSdkModule>,
} as const;

/** One of {@link SDK_VERSIONS}. */
export type SdkVersion = keyof typeof SDK_VERSIONS;

/** Options of a runtime against `emulator`: its credentials and fetch, and the SDK of `version`. */
export function emulatorOptions(emulator: VercelEmulator, version: SdkVersion = "3.5"): VercelRuntimeOptions {
  return { ...emulator.credentials, fetch: emulator.fetch, sdk: SDK_VERSIONS[version] };
}

/** What a test file drives. */
export interface Emulated {
  /** The emulator: faults, request log, foreign sandboxes. */
  readonly emulator: VercelEmulator;
  /** A runtime against it, with the file's options. */
  readonly runtime: VercelRuntime;
  /** Another runtime against the same emulator, `options` over the file's. */
  runtimeWith(options: Partial<VercelRuntimeOptions>): VercelRuntime;
}

/** Starts an emulator for one test file and a runtime on it with `options` (an `owner` at least). */
export async function emulated(
  options: Partial<VercelRuntimeOptions>,
  { version = "3.5", ...emulatorOptionsGiven }: VercelEmulatorOptions & { readonly version?: SdkVersion } = {},
): Promise<Emulated> {
  const emulator = await startVercelEmulator(emulatorOptionsGiven);
  afterEach(() => emulator.clearFaults());
  after(() => emulator.stop());
  const runtimeWith = (more: Partial<VercelRuntimeOptions>) =>
    new VercelRuntime({ ...emulatorOptions(emulator, version), ...options, ...more });
  return { emulator, runtime: runtimeWith({}), runtimeWith };
}
