// The shared conformance suite through DaytonaRuntime and the real Daytona SDK,
// the newest (0.218) and the oldest supported (0.180), against the Daytona
// emulator from @sandport/testkit (REST API, toolbox, sessions, previews).

import { conformanceEgressResolver, describeRuntimeConformance } from "@sandport/testkit/conformance";
import { startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { namespacesSkipReason } from "@sandport/testkit/fakes";
import { emulatorOptions, OLDEST, SDKS } from "../test/emulated.js";
import { DaytonaRuntime } from "./daytona-runtime.js";
import type { DaytonaRuntimeOptions } from "./options.js";

// Without bubblewrap the emulator's backend keeps the sandbox's home in a host directory: a command
// started in /tmp (the host's, shared) then cannot reach the async recipe's records by their in-sandbox paths.
const unisolated = await namespacesSkipReason();

for (const sdk of SDKS) {
  describeRuntimeConformance({
    name: `DaytonaRuntime (real ${sdk.label} → Daytona emulator)`,
    createRuntime: async () => {
      // VM sandboxes, which Daytona forks (it refuses to fork a container one).
      const emulator = await startDaytonaEmulator({
        egressResolver: conformanceEgressResolver,
        sandboxClass: "linux-vm",
      });
      const options: DaytonaRuntimeOptions = { ...emulatorOptions(emulator, sdk), owner: "conformance" };
      return {
        runtime: new DaytonaRuntime(options),
        egressProbe: true,
        reopen: () => new DaytonaRuntime(options),
        cleanup: () => emulator.stop(),
        requestCount: () => emulator.countRequests(),
      };
    },
    timeouts: { promptMs: 3_000 },
    knownDeviations: {
      "terminal.kill":
        "the daemon reports a PTY session's shell ended by a signal as exit code -1 (Go's ExitCode()), naming no signal: kill('SIGTERM') ends the program, but its exit has signal null",
    },
    skip: {
      ...(unisolated === undefined
        ? {}
        : {
            "exec.cwd-anywhere": `${unisolated} (the emulator's home is a host directory without it)`,
            "lifecycle.network-allow": `${unisolated} (the emulator enforces networkAllowList and domainAllowList with the backend's allow list, which needs bubblewrap)`,
          }),
      ...(sdk === OLDEST
        ? {
            "lifecycle.network-allow":
              "@daytonaio/sdk 0.180 does not send domainAllowList: a launch naming a domain is refused (UNSUPPORTED) after the create, which network.wire.test.ts proves",
          }
        : {}),
    },
  });
}
