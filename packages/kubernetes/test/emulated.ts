// The fixture of this package's tests: a Kubernetes emulator (API server,
// warm pools, sandbox-router, sandboxd, pod exec) from the testkit and a
// KubernetesRuntime pointed at it. Await it in a suite skipped with
// `kubernetesSkip`: the emulator is stopped after the suite, its faults
// cleared after each test.
import { after, afterEach } from "node:test";
import {
  type KubernetesEmulator,
  type KubernetesEmulatorOptions,
  kubernetesEmulatorSkipReason,
  startKubernetesEmulator,
} from "@sandport/testkit/emulators/kubernetes";
import { KubernetesRuntime } from "../src/kubernetes-runtime.js";
import type { DataPlane, KubernetesRuntimeOptions } from "../src/options.js";

/** Why the emulator cannot run here (its pods need their own `/workspace`); `undefined` when it can. */
export const kubernetesSkip = await kubernetesEmulatorSkipReason();

/** What a test file drives. */
export interface Emulated {
  readonly emulator: KubernetesEmulator;
  readonly runtime: KubernetesRuntime;
  runtimeWith(options: Partial<KubernetesRuntimeOptions>): KubernetesRuntime;
}

/** The runtime options that point at `emulator` on `dataPlane` (the sandboxd pool, or the plain one for pod exec). */
export function emulatorOptions(
  emulator: KubernetesEmulator,
  dataPlane: DataPlane = "sandboxd",
): KubernetesRuntimeOptions {
  return {
    cluster: { server: emulator.apiServerUrl, token: emulator.token },
    namespace: emulator.namespace,
    warmPool: dataPlane === "sandboxd" ? "sandboxd-pool" : "plain-pool",
    dataPlane,
    // The router reaches any port of any pod, so pod exec has it too (for portEndpoint).
    routerUrl: emulator.routerUrl,
  };
}

/** Starts an emulator for one test file and a runtime on it with `options` (an `owner` at least). */
export async function emulated(
  options: Partial<KubernetesRuntimeOptions>,
  emulatorSettings?: KubernetesEmulatorOptions,
): Promise<Emulated> {
  const emulator = await startKubernetesEmulator(emulatorSettings);
  afterEach(() => emulator.clearFaults());
  after(() => emulator.stop());
  const runtimeWith = (more: Partial<KubernetesRuntimeOptions>) =>
    new KubernetesRuntime({ ...emulatorOptions(emulator, more.dataPlane ?? options.dataPlane), ...options, ...more });
  return { emulator, runtime: runtimeWith({}), runtimeWith };
}
