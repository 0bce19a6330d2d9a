// The fixture of this package's tests: a Daytona emulator from the testkit and
// a DaytonaRuntime pointed at it through a real Daytona SDK, the oldest or the
// newest supported. Await it at the top of a test file (or in a describe): the
// emulator is stopped after the file, its faults cleared after each test.
import { after, afterEach } from "node:test";
import {
  type DaytonaEmulator,
  type DaytonaEmulatorOptions,
  startDaytonaEmulator,
} from "@sandport/testkit/emulators/daytona";
import { DaytonaRuntime } from "../src/daytona-runtime.js";
import type { DaytonaSdkModule } from "../src/internal/sdk-types.js";
import type { DaytonaRuntimeOptions } from "../src/options.js";

/** One SDK build the wire tests run against. */
export interface SdkUnderTest {
  /** Package and version, for test names. */
  readonly label: string;
  /** Loads it (the runtime's `sdk` option). */
  readonly load: () => Promise<DaytonaSdkModule>;
}

/** @daytonaio/sdk 0.218.0, the newest release. */
export const NEWEST: SdkUnderTest = {
  label: "@daytonaio/sdk 0.218.0",
  load: async () => (await import("@daytonaio/sdk")) as unknown as DaytonaSdkModule,
};

/** @daytonaio/sdk 0.180.0 (installed as daytona-sdk-legacy), the oldest supported. */
export const OLDEST: SdkUnderTest = {
  label: "@daytonaio/sdk 0.180.0",
  load: async () => (await import("daytona-sdk-legacy")) as unknown as DaytonaSdkModule,
};

/** The builds every wire test runs against. */
export const SDKS: readonly SdkUnderTest[] = [NEWEST, OLDEST];

/** What a test file drives. */
export interface Emulated {
  /** The emulator: faults, request log, foreign sandboxes. */
  readonly emulator: DaytonaEmulator;
  /** A runtime against it, with the file's options. */
  readonly runtime: DaytonaRuntime;
  /** Another runtime against the same emulator, `options` over the file's. */
  runtimeWith(options: Partial<DaytonaRuntimeOptions>): DaytonaRuntime;
}

/** The options that point a runtime at `emulator` through `sdk`. */
export function emulatorOptions(emulator: DaytonaEmulator, sdk: SdkUnderTest = NEWEST): DaytonaRuntimeOptions {
  return { apiKey: emulator.apiKey, apiUrl: emulator.apiUrl, target: emulator.target, sdk: sdk.load };
}

/** Starts an emulator for one test file and a runtime on it with `options` (an `owner` at least). */
export async function emulated(
  options: Partial<DaytonaRuntimeOptions>,
  sdk: SdkUnderTest = NEWEST,
  emulatorSettings?: DaytonaEmulatorOptions,
): Promise<Emulated> {
  const emulator = await startDaytonaEmulator(emulatorSettings);
  afterEach(() => emulator.clearFaults());
  after(() => emulator.stop());
  const runtimeWith = (more: Partial<DaytonaRuntimeOptions>) =>
    new DaytonaRuntime({ ...emulatorOptions(emulator, sdk), ...options, ...more });
  return { emulator, runtime: runtimeWith({}), runtimeWith };
}
