// Readiness is watched, not polled, against the cluster emulator: a launch
// reads its claim once, then watches it; a watch whose resourceVersion the
// API server no longer keeps (an ERROR event with a 410 Expired Status) is
// followed by a fresh read and a new watch.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { delay } from "@sandport/testkit/assertions";
import { emulated, kubernetesSkip } from "../test/emulated.js";

describe("KubernetesRuntime readiness", { skip: kubernetesSkip }, async () => {
  const { emulator, runtime } = await emulated({ owner: "readiness", launchEnv: "cold-start" });

  const CLAIMS = "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/:namespace/sandboxclaims";

  test("a launch watches its claim; a watch answered 410 Expired is followed by a fresh read, and the launch completes", async () => {
    emulator.resetRequests();
    // The first watch is held while its resourceVersion is made too old.
    emulator.injectFault({ route: `GET ${CLAIMS}`, fault: { kind: "latency", ms: 500 } });
    // A cold start (env): the claim is not Ready when it is first read.
    const launching = runtime.launch({ env: { COLD: "1" } });
    let settled = false;
    launching.then(
      () => (settled = true),
      () => (settled = true),
    );
    while (!settled && emulator.requestCount(`GET ${CLAIMS}`) === 0) await delay(5);
    assert.equal(emulator.requestCount(`GET ${CLAIMS}`), 1, "the launch watched its claim");
    const readsBefore = emulator.requestCount(`GET ${CLAIMS}/:name`);
    // One change, then the history is dropped: every version up to it is too old to watch from.
    const bump = await fetch(`${emulator.apiServerUrl}${CLAIMS.replace(":namespace", emulator.namespace)}`, {
      method: "POST",
      headers: { authorization: `Bearer ${emulator.token}`, "content-type": "application/json" },
      body: JSON.stringify({ metadata: { generateName: "bump-" }, spec: { warmPoolRef: { name: "no-such-pool" } } }),
    });
    assert.equal(bump.status, 201);
    emulator.compactHistory();
    const handle = await launching;
    try {
      assert.ok(emulator.requestCount(`GET ${CLAIMS}/:name`) > readsBefore, "after the 410 the claim was read again");
      // Stop and start wait on the sandbox the same way; the env of a cold start survives a resume.
      await runtime.stop(handle);
      await runtime.start(handle);
      assert.equal((await runtime.exec(handle, { shell: "echo $COLD" })).stdout, "1\n");
    } finally {
      await runtime.destroy(handle);
    }
  });
});
