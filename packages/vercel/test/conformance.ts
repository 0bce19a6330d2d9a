// The shared conformance suite over the Vercel emulator, for one SDK version. Names
// outside the runtime's prefix are foreign by construction, so the id that names no
// sandbox is one inside it.
import { describeRuntimeConformance } from "@sandport/testkit/conformance";
import { startVercelEmulator } from "@sandport/testkit/emulators/vercel";
import { VercelSandboxRuntime } from "../src/vercel-sandbox-runtime.js";
import { emulatorOptions, type SdkVersion } from "./emulated.js";

/** Declares the conformance suite for `VercelSandboxRuntime` with the SDK of `version`. */
export function describeVercelConformance(version: SdkVersion): void {
  describeRuntimeConformance({
    name: `VercelSandboxRuntime (real @vercel/sandbox ${version} → Vercel emulator)`,
    createRuntime: async () => {
      const emulator = await startVercelEmulator();
      const options = { ...emulatorOptions(emulator, version), owner: "conformance" };
      return {
        runtime: new VercelSandboxRuntime(options),
        reopen: () => new VercelSandboxRuntime(options),
        cleanup: () => emulator.stop(),
        requestCount: () => emulator.countRequests(),
      };
    },
    unknownSandboxId: "sandport-conformance-no-such-sandbox",
    timeouts: { promptMs: 3_000 },
  });
}
