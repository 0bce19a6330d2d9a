// Sandboxes that share the host's loopback (LocalRuntime with isolation
// "none", or namespaces with `hostNetwork` and a launch's `network: true`): the host's own
// bridge already holds 127.0.0.1:bridgePort there, so the default route must
// find it and run the module directly instead of relaying. agent-native's
// real run-code tool drives the adapter; this file runs under Node 22.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, describe, test } from "node:test";
import { localTestRuntime } from "@sandport/testkit/fakes";
import { createRunCodeEntry } from "../node_modules/@agent-native/core/dist/coding-tools/run-code.js";
import { registerSandboxAdapter } from "../node_modules/@agent-native/core/dist/coding-tools/sandbox/index.js";
import { SandportSandboxAdapter } from "./index.js";

const local = await localTestRuntime("agent-native-shared");
// LocalRuntime under isolation "none" and with hostNetwork: the testkit's runtime class, as this package does not
// depend on @sandport/local.
const LocalRuntime = local.runtime.constructor as new (options: {
  root: string;
  isolation: "none" | "namespaces";
  hostNetwork?: boolean;
}) => typeof local.runtime;
const root = mkdtempSync(join(tmpdir(), "sandport-agent-native-none-"));
const plain = new LocalRuntime({ root, isolation: "none" });
const sharingRoot = mkdtempSync(join(tmpdir(), "sandport-agent-native-host-network-"));
// Only `network: "all"` with hostNetwork shares the host's network namespace under namespaces.
const sharing = new LocalRuntime({ root: sharingRoot, isolation: "namespaces", hostNetwork: true });
after(async () => {
  try {
    for (const handle of await plain.findByLabels({})) await plain.destroy(handle);
    if (local.namespacesOnly === undefined) {
      for (const handle of await sharing.findByLabels({})) await sharing.destroy(handle);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(sharingRoot, { recursive: true, force: true });
    await local.cleanup();
  }
});
afterEach(() => registerSandboxAdapter(null));

/** The app's actions the bridge may call: one read-only lookup. */
const actions = {
  lookup: {
    tool: { description: "Looks a word up.", parameters: { type: "object", properties: { word: { type: "string" } } } },
    readOnly: true,
    run: async ({ word }: { word: string }) => ({ word, length: word.length }),
  },
};

/** A module that calls the parent's bridge with `word` and prints the answer. */
const lookup = (word: string) =>
  `const found = await appAction("lookup", { word: ${JSON.stringify(word)} }); console.log(JSON.stringify(found));`;

/** Whether run-code's output carries the bridge's answer for `word`. */
function answered(output: unknown, word: string): boolean {
  const text = typeof output === "string" ? output : JSON.stringify(output);
  return text.replaceAll("\\", "").includes(JSON.stringify({ word, length: word.length }));
}

describe("the default route on a sandbox that shares the host's loopback", () => {
  test("LocalRuntime, isolation none: the module reaches the host's bridge directly; two runs at once", async () => {
    registerSandboxAdapter(new SandportSandboxAdapter({ runtime: plain, launch: { labels: { test: "shared" } } }));
    const runCode = createRunCodeEntry(() => actions as never);
    const [one, two] = await Promise.all([
      runCode.run({ code: lookup("alpha") }),
      runCode.run({ code: lookup("beta") }),
    ]);
    assert.ok(answered(one, "alpha"), JSON.stringify(one));
    assert.ok(answered(two, "beta"), JSON.stringify(two));
    assert.deepEqual(await plain.findByLabels({ test: "shared" }), []);
  });

  test("LocalRuntime, isolation none, a held sandbox: the same, run after run", async () => {
    const handle = await plain.launch({});
    try {
      registerSandboxAdapter(new SandportSandboxAdapter({ runtime: plain, handle }));
      const runCode = createRunCodeEntry(() => actions as never);
      assert.ok(answered(await runCode.run({ code: lookup("first") }), "first"));
      assert.ok(answered(await runCode.run({ code: lookup("second") }), "second"));
      // The probe's question and answer, like the tunnel token, never reach the module.
      const leaked = await runCode.run({
        code: 'console.log("leaked:", Object.keys(process.env).filter((name) => /^SANDPORT_(PROBE|TUNNEL)/.test(name)).length);',
      });
      assert.match(typeof leaked === "string" ? leaked : JSON.stringify(leaked), /leaked: 0/);
    } finally {
      await plain.destroy(handle);
    }
  });

  test("namespaces with hostNetwork and the launch's network: the sandbox shares the host's network, and the module still gets through", {
    skip: local.namespacesOnly,
  }, async () => {
    registerSandboxAdapter(new SandportSandboxAdapter({ runtime: sharing, launch: { network: true } }));
    const runCode = createRunCodeEntry(() => actions as never);
    assert.ok(answered(await runCode.run({ code: lookup("gamma") }), "gamma"));
  });
});
