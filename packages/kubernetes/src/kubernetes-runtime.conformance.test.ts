// The shared conformance suite through KubernetesRuntime against the cluster
// emulator from @sandport/testkit (API server, warm pools, sandbox-router,
// sandboxd, pod exec; every pod a real local sandbox), over each data plane.

import { describeRuntimeConformance } from "@sandport/testkit/conformance";
import { kubernetesEmulatorSkipReason, startKubernetesEmulator } from "@sandport/testkit/emulators/kubernetes";
import { emulatorOptions } from "../test/emulated.js";
import { KubernetesRuntime } from "./kubernetes-runtime.js";
import type { KubernetesRuntimeOptions } from "./options.js";

const unavailable = await kubernetesEmulatorSkipReason();

for (const dataPlane of ["pod-exec", "sandboxd"] as const) {
  describeRuntimeConformance({
    name: `KubernetesRuntime (${dataPlane} → Kubernetes emulator)`,
    ...(unavailable === undefined ? {} : { unavailable }),
    createRuntime: async () => {
      const emulator = await startKubernetesEmulator();
      const options: KubernetesRuntimeOptions = {
        ...emulatorOptions(emulator, dataPlane),
        owner: "conformance",
        launchEnv: "cold-start",
      };
      return {
        runtime: new KubernetesRuntime(options),
        reopen: () => new KubernetesRuntime(options),
        cleanup: () => emulator.stop(),
        requestCount: () => emulator.countRequests(),
      };
    },
    timeouts: { promptMs: 3_000 },
    knownDeviations: {
      "terminal.kill":
        dataPlane === "sandboxd"
          ? "sandboxd reports a process ended by a signal as exit code -1 (Go's ExitCode()), naming no signal: kill('SIGTERM') ends the program, but its exit has signal null"
          : "pod exec's final Status gives an exit code, never a signal: kill('SIGTERM') ends the program, but its exit has signal null",
    },
  });
}
