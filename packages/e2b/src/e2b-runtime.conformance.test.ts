// The shared conformance suite through E2BRuntime and the real e2b SDK, against
// the E2B emulator from @sandport/testkit (control plane, envd process stream, /files).

import { conformanceEgressResolver, describeRuntimeConformance } from "@sandport/testkit/conformance";
import { startE2BEmulator } from "@sandport/testkit/emulators/e2b";
import { namespacesSkipReason } from "@sandport/testkit/fakes";
import { E2BRuntime } from "./e2b-runtime.js";
import type { E2BRuntimeOptions } from "./options.js";

// Without bubblewrap the emulator's backend keeps the sandbox's home in a host directory: a command
// started in /tmp then cannot reach the async recipe's state files by their in-sandbox paths.
const unisolated = await namespacesSkipReason();

describeRuntimeConformance({
  name: "E2BRuntime (real e2b SDK → E2B emulator)",
  createRuntime: async () => {
    // The backend's egress proxy resolves the conformance names to this machine's test servers.
    const emulator = await startE2BEmulator({ egressResolver: conformanceEgressResolver });
    const options: E2BRuntimeOptions = {
      apiKey: emulator.apiKey,
      apiUrl: emulator.apiUrl,
      sandboxUrl: emulator.sandboxUrl,
      domain: emulator.domain,
      owner: "conformance",
    };
    return {
      runtime: new E2BRuntime(options),
      reopen: () => new E2BRuntime(options),
      cleanup: () => emulator.stop(),
      requestCount: () => emulator.countRequests(),
      egressProbe: true,
    };
  },
  timeouts: { promptMs: 3_000 },
  ...(unisolated === undefined
    ? {}
    : {
        skip: {
          "exec.cwd-anywhere": `${unisolated} (the emulator's home is a host directory without it)`,
          // Without bubblewrap the backend cannot enforce an allow list, so the emulated create fails.
          "lifecycle.network-allow": `${unisolated} (the emulator's backend enforces allowOut only under it)`,
        },
      }),
});
