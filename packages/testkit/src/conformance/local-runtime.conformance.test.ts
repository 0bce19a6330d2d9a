// The shared conformance suite against LocalRuntime, once per isolation mode,
// each over its own temporary root. It lives here rather than in
// packages/local because testkit already depends on local.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalRuntime, type LocalRuntimeOptions } from "@sandport/local";
import { localTestRuntime } from "../fakes/local-test-runtime.js";
import { describeRuntimeConformance } from "./index.js";

// `undefined` when namespace isolation works here, else why not; under
// `SANDPORT_REQUIRE_BWRAP=1` (CI) unavailability throws, so the namespaces run
// can never be skipped silently there.
const probe = await localTestRuntime("conformance-probe");
probe.cleanup();
const unavailable = probe.fallbackReason;

for (const isolation of ["namespaces", "none"] as const) {
  describeRuntimeConformance({
    name: `LocalRuntime (isolation: ${isolation})`,
    unavailable: isolation === "namespaces" ? unavailable : undefined,
    createRuntime: () => {
      const root = mkdtempSync(join(tmpdir(), `sandport-conformance-${isolation}-`));
      const options: LocalRuntimeOptions = { root, isolation, owner: "conformance" };
      return {
        runtime: new LocalRuntime(options),
        reopen: () => new LocalRuntime(options),
        cleanup: () => rmSync(root, { recursive: true, force: true }),
      };
    },
    timeouts: { promptMs: 2_000 },
  });
}
