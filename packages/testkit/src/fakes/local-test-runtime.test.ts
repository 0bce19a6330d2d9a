import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { waitFor } from "../assertions/index.js";
import { localTestRuntime, localTestSandbox, namespacesSkipReason } from "./local-test-runtime.js";
import { mockModelSteps } from "./mock-model-steps.js";
import { withoutMethods } from "./recording-runtime.js";

test("localTestRuntime runs commands, under namespaces wherever bubblewrap is installed, and cleans up", async () => {
  const local = await localTestRuntime("testkit-local");
  try {
    const handle = await local.runtime.launch({});
    const result = await local.runtime.exec(handle, { shell: "echo ok" });
    assert.equal(result.stdout, "ok\n");
    assert.equal(result.isolation, local.isolation);
    if (process.env.SANDPORT_REQUIRE_BWRAP === "1") assert.equal(local.isolation, "namespaces");
    if (local.isolation === "namespaces") assert.equal(local.namespacesOnly, undefined);
    else assert.match(local.namespacesOnly ?? "", /^bubblewrap is unusable here/);
    assert.equal(await namespacesSkipReason(), local.namespacesOnly);
    await local.runtime.destroy(handle);
  } finally {
    await local.cleanup();
  }
});

test("localTestRuntime options: isolation none on request, and the egress resolver handed to the runtime", async () => {
  const plain = await localTestRuntime("testkit-plain", { isolation: "none" });
  try {
    assert.equal(plain.isolation, "none");
    assert.equal(plain.runtime.capabilities.modes.networkPolicy, "unsupported");
    assert.match(plain.namespacesOnly ?? "", /isolation: none|bubblewrap is unusable here/);
  } finally {
    await plain.cleanup();
  }
  const asked: string[] = [];
  const local = await localTestRuntime("testkit-egress", {
    egressResolver: async (host) => {
      asked.push(host);
      return [];
    },
  });
  try {
    if (local.isolation === "none") return; // allow lists need namespaces; the resolver is then never asked
    const handle = await local.runtime.launch({ network: { allow: ["resolved.test"] } });
    const fetched = await local.runtime.exec(handle, {
      argv: ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://resolved.test/"],
    });
    assert.equal(fetched.stdout, "403", "a name resolving to nothing is refused by the proxy");
    assert.deepEqual(asked, ["resolved.test"]);
    await local.runtime.destroy(handle);
  } finally {
    await local.cleanup();
  }
});

test("withoutMethods hides methods from a real runtime and keeps the rest working on its private state", async () => {
  const local = await localTestRuntime("testkit-without");
  try {
    const view = withoutMethods(local.runtime, ["spawn", "stat"]);
    assert.equal(view.spawn, undefined);
    assert.equal("stat" in view, false);
    assert.equal("listDir" in view, true);
    const handle = await view.launch({});
    assert.equal((await view.exec(handle, { shell: "echo ok" })).stdout, "ok\n");
    await view.destroy(handle);
  } finally {
    await local.cleanup();
  }
});

test("localTestSandbox launches one sandbox; cleanup destroys it and removes the root", async () => {
  const local = await localTestSandbox("testkit-sandbox");
  assert.equal((await local.runtime.exec(local.handle, { shell: "echo ok" })).stdout, "ok\n");
  await local.cleanup();
  assert.equal(await local.runtime.getById(local.handle.id), undefined);
});

test("cleanup destroys the sandboxes a failed test left running before it removes the root", async () => {
  const local = await localTestRuntime("testkit-left");
  const marker = `100.${Math.floor(Math.random() * 900_000 + 100_000)}`;
  const handle = await local.runtime.launch({});
  const command = await local.runtime.spawn(handle, { argv: ["sleep", marker] });
  await waitFor(() => sleepers(marker) > 0, { timeoutMs: 10_000, what: "the command to start" });
  await local.cleanup();
  assert.equal(sleepers(marker), 0, "the command died with its sandbox");
  assert.equal(await local.runtime.getById(handle.id), undefined);
  await command.result.catch(() => {});
});

test("mockModelSteps: one tool-call step per call, with JSON input, then the final text", () => {
  const steps = mockModelSteps([{ toolName: "shell", input: { command: "ls" } }], "done");
  assert.deepEqual(
    steps.map((step) => step.content[0]),
    [
      { type: "tool-call", toolCallId: "call-1", toolName: "shell", input: '{"command":"ls"}' },
      { type: "text", text: "done" },
    ],
  );
  assert.deepEqual(
    steps.map((step) => step.finishReason.unified),
    ["tool-calls", "stop"],
  );
});

/** Live processes whose argv is `sleep <marker>`. */
function sleepers(marker: string): number {
  let count = 0;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\u0000");
      const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
      if (argv[0]?.endsWith("sleep") && argv[1] === marker && state !== "Z") count += 1;
    } catch {
      // Exited while we looked.
    }
  }
  return count;
}
