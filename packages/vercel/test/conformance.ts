// The shared conformance suite over the Vercel emulator, for one SDK version. Names
// outside the runtime's prefix are foreign by construction, so the id that names no
// sandbox is one inside it.
import { describeRuntimeConformance } from "@sandport/testkit/conformance";
import { startVercelEmulator } from "@sandport/testkit/emulators/vercel";
import { VercelRuntime } from "../src/vercel-runtime.js";
import { emulatorOptions, type SdkVersion } from "./emulated.js";

/** Declares the conformance suite for `VercelRuntime` with the SDK of `version`. */
export function describeVercelConformance(version: SdkVersion): void {
  describeRuntimeConformance({
    name: `VercelRuntime (real @vercel/sandbox ${version} → Vercel emulator)`,
    createRuntime: async () => {
      const emulator = await startVercelEmulator();
      const options = { ...emulatorOptions(emulator, version), owner: "conformance" };
      return {
        runtime: new VercelRuntime(options),
        reopen: () => new VercelRuntime(options),
        cleanup: () => emulator.stop(),
        requestCount: () => emulator.countRequests(),
      };
    },
    unknownSandboxId: "sandport-conformance-no-such-sandbox",
    timeouts: { promptMs: 3_000 },
  });
}
