// The shared conformance suite against LocalRuntime, once per isolation mode,
// each over its own temporary root. It lives here rather than in
// packages/local because testkit already depends on local.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SandportError } from "@sandport/core";
import { LocalRuntime, type LocalRuntimeOptions } from "@sandport/local";
import { conformanceEgressResolver, describeRuntimeConformance } from "./index.js";

/**
 * `undefined` when namespace isolation works here, else why not. Under
 * `SANDPORT_REQUIRE_BWRAP=1` (CI) unavailability throws, so the namespaces run
 * can never be skipped silently there.
 */
async function namespacesUnavailable(): Promise<string | undefined> {
  const root = mkdtempSync(join(tmpdir(), "sandport-conformance-probe-"));
  const runtime = new LocalRuntime({ root, isolation: "namespaces" });
  try {
    const handle = await runtime.launch({});
    await runtime.exec(handle, { argv: ["true"] });
    await runtime.destroy(handle);
    return undefined;
  } catch (error) {
    if (!SandportError.hasCode(error, "UNSUPPORTED")) throw error;
    if (process.env.SANDPORT_REQUIRE_BWRAP === "1")
      throw new Error(`namespace isolation is required: ${error.message}`);
    return error.message;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const unavailable = await namespacesUnavailable();

for (const isolation of ["namespaces", "none"] as const) {
  describeRuntimeConformance({
    name: `LocalRuntime (isolation: ${isolation})`,
    unavailable: isolation === "namespaces" ? unavailable : undefined,
    createRuntime: () => {
      const root = mkdtempSync(join(tmpdir(), `sandport-conformance-${isolation}-`));
      const options: LocalRuntimeOptions = {
        root,
        isolation,
        owner: "conformance",
        egressResolver: conformanceEgressResolver,
      };
      return {
        runtime: new LocalRuntime(options),
        egressProbe: true,
        reopen: () => new LocalRuntime(options),
        cleanup: () => rmSync(root, { recursive: true, force: true }),
      };
    },
    // The limits checks follow the declaration: a host without writable cgroups (or, for diskLimit, without
    // the means to loop-mount an image) declares the limit unsupported, and limits.refused checks the refusal.
    timeouts: { promptMs: 2_000 },
  });
}
