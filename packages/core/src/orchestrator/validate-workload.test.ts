import assert from "node:assert/strict";
import { test } from "node:test";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { checkOrchestratorOptions, validateAcquireSpec, validateWorkload } from "./validate-workload.js";

/** Validation reads only a runtime's workspace root and provider name. */
const at = (workspaceRoot: string) => ({ workspaceRoot, provider: "test" }) as unknown as SandboxRuntime;

test("a workload is checked against each runtime's own workspace root: an absolute path fits one and not another", () => {
  const workload = {
    launch: {},
    files: [{ path: "/workspace/in.txt", content: "x" }],
    steps: [{ argv: ["cat", "in.txt"] }],
    collect: ["/workspace/in.txt"],
  };
  assert.deepEqual(
    validateWorkload(workload, at("/workspace")).files.map((file) => file.path),
    ["in.txt"],
  );
  assert.throws(() => validateWorkload(workload, at("/home/user/sandbox")), { code: "INVALID_REQUEST" });
  assert.doesNotThrow(() =>
    validateWorkload({ ...workload, files: [], collect: ["in.txt"] }, at("/home/user/sandbox")),
  );
});

test("an acquire spec is a launch spec or one reuse target", () => {
  const runtime = at("/workspace");
  assert.doesNotThrow(() => validateAcquireSpec({ reuse: { id: "sbx-1" } }, runtime));
  assert.doesNotThrow(() => validateAcquireSpec({ reuse: { labels: { "sandport.owner": "me" } } }, runtime));
  for (const spec of [
    null,
    { reuse: { id: "" } },
    { reuse: { id: "a", labels: {} } },
    { reuse: {} },
    { ports: "80" },
  ]) {
    assert.throws(() => validateAcquireSpec(spec as never, runtime), { code: "INVALID_REQUEST" }, JSON.stringify(spec));
  }
});

test("orchestrator options: unknown keys, bad timeouts and bad price tables are refused", () => {
  assert.doesNotThrow(() =>
    checkOrchestratorOptions({ timeouts: { launchMs: 1_000 }, prices: { currency: "USD", providers: {} } }),
  );
  assert.throws(() => checkOrchestratorOptions({ timeout: {} } as never), { code: "INVALID_REQUEST" });
  assert.throws(() => checkOrchestratorOptions({ timeouts: { launchMs: 0 } }), { code: "INVALID_REQUEST" });
  assert.throws(() => checkOrchestratorOptions({ prices: { currency: "", providers: {} } }), {
    code: "INVALID_REQUEST",
    message: /prices\.currency/,
  });
});
