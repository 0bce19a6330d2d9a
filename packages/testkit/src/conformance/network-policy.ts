import assert from "node:assert/strict";
import type { LaunchSpec, SandboxHandle } from "@sandport/core";
import { expectCode } from "./assertions.js";
import { type CheckGroup, GROUP_LABEL, RUN_LABEL } from "./suite.js";

/**
 * A network policy beyond what `networkPolicy` declares, or undefined where
 * the runtime declares every policy (`domains`).
 */
function unenforceablePolicy(declared: unknown): LaunchSpec["network"] | undefined {
  if (declared === "domains") return undefined;
  // A domain entry: beyond `cidr`; an allow list at all: beyond `all-or-none` and every absence.
  return { allow: ["sandport-conformance.example.com:443"] };
}

/**
 * Registers `lifecycle.network-policy`: a malformed network policy is
 * `INVALID_REQUEST`, and a policy beyond the declared `networkPolicy` is
 * `UNSUPPORTED`; neither sends a request to the provider (where the fixture
 * counts them) nor leaves a sandbox behind (where labels can be searched).
 */
export function declareNetworkPolicyChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  group.check("lifecycle.network-policy", async () => {
    const labels = { [GROUP_LABEL]: "lifecycle-network-policy" };
    const launch = async (network: unknown) => {
      const handle = suite.track(await runtime.launch(suite.specFor({ labels, network } as LaunchSpec)));
      await suite.destroy(handle);
      return handle;
    };
    const before = suite.requestCount?.();
    const malformed = await expectCode(() => launch({ allow: ["not a domain"] }), "INVALID_REQUEST", "a bad entry");
    assert.match(malformed.message, /network\.allow\[0\]/, "the refusal names the bad entry");
    await expectCode(() => launch("some"), "INVALID_REQUEST", 'network: "some"');
    const beyond = unenforceablePolicy(suite.capabilities.networkPolicy);
    if (beyond !== undefined) {
      await expectCode(
        () => launch(beyond),
        "UNSUPPORTED",
        `an allow list (networkPolicy is ${suite.capabilities.networkPolicy})`,
      );
    }
    if (before !== undefined) assert.equal(suite.requestCount?.(), before, "a refused policy sent no request");
    if (suite.capabilities.labelSearch === true) {
      const created = await runtime.findByLabels!({ [RUN_LABEL]: suite.runId, ...labels });
      assert.deepEqual(created, [], "a refused network policy created a sandbox");
    }
  });
}
