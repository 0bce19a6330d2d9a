// The shared conformance suite through MicrosandboxRuntime and the real
// microsandbox SDK (cloud backend, Node 22), against the microsandbox emulator
// from @sandport/testkit (REST control plane and the CBOR agent protocol over
// WebSockets), whose sandboxes run for real on a local backend.

import { describeRuntimeConformance } from "@sandport/testkit/conformance";
import { startMicrosandboxEmulator } from "@sandport/testkit/emulators/microsandbox";
import { cloudOf } from "../test/emulated.js";
import { MicrosandboxRuntime } from "./microsandbox-runtime.js";
import type { MicrosandboxRuntimeOptions } from "./options.js";

describeRuntimeConformance({
  name: "MicrosandboxRuntime (real microsandbox SDK → microsandbox emulator)",
  createRuntime: async () => {
    const emulator = await startMicrosandboxEmulator();
    const options: MicrosandboxRuntimeOptions = { backend: cloudOf(emulator), owner: "conformance" };
    return {
      runtime: new MicrosandboxRuntime(options),
      reopen: () => new MicrosandboxRuntime(options),
      cleanup: () => emulator.stop(),
      requestCount: () => emulator.countRequests(),
    };
  },
  timeouts: { promptMs: 3_000 },
  skip: {
    // The emulator's, not the adapter's: it keeps the guest filesystem in a host directory (guest `/` is the backend
    // workspace, see its README), so `pwd` in guest /tmp or / prints that directory. exec.node22.test.ts shows the
    // command running in guest /tmp.
    "exec.cwd-anywhere": "the emulated guest filesystem is a host directory: pwd cannot print /tmp or /",
  },
});
