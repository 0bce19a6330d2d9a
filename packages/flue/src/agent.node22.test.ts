// A real Flue agent (start, init, dispatch, read), its standard write / bash /
// read tools, driven by pi-ai's faux model, with the bridge as its sandbox,
// against a real LocalRuntime. Flue needs Node 22.19+: this file runs under
// the Node 22 binary (scripts/run-tests.mjs).
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import { init, useModel, useSandbox } from "@flue/runtime";
import { start } from "@flue/runtime/node";
import { localTestRuntime, namespacesSkipReason } from "@sandport/testkit/fakes";
import { FLUE_INSTANCE_LABEL, sandportSandbox } from "./index.js";

/** Why the tests that assert what only a namespaced sandbox shows (its `/workspace`, its loopback) skip here, if they do. */
const namespacesOnly = await namespacesSkipReason();

const local = await localTestRuntime("flue");
after(() => local.cleanup());

describe(`a Flue agent on a LocalRuntime (isolation: ${local.isolation})`, () => {
  test("the model writes a script, runs it with bash and reads its output; the sandbox is per instance id", {
    skip: namespacesOnly,
  }, async () => {
    const faux = fauxProvider();
    const sandbox = sandportSandbox({ runtime: local.runtime, launch: { labels: { test: "flue" } } });
    function Builder() {
      useModel(`${faux.provider.id}/${faux.getModel().id}`);
      useSandbox(sandbox);
      return "Build it.";
    }
    faux.setResponses([
      fauxAssistantMessage([fauxToolCall("write", { path: "greet.sh", content: 'echo "hello from $PWD" > out.txt' })], {
        stopReason: "toolUse",
      }),
      fauxAssistantMessage([fauxToolCall("bash", { command: "sh greet.sh && echo ran; echo warn >&2; exit 3" })], {
        stopReason: "toolUse",
      }),
      fauxAssistantMessage([fauxToolCall("read", { path: "out.txt" })], { stopReason: "toolUse" }),
      (context) => fauxAssistantMessage(JSON.stringify(context.messages.filter((m) => m.role === "toolResult"))),
    ]);
    const flue = await start({ agents: [Builder], providers: [faux.provider] });
    try {
      const agent = init(Builder, { id: "builder-1" });
      const reply = await agent.read(await agent.dispatch("build"));
      const results = JSON.parse(reply.text) as { content: { text?: string }[]; isError?: boolean }[];
      const texts = results.map((result) => result.content.map((part) => part.text ?? "").join(""));
      assert.equal(texts.length, 3, reply.text);
      assert.match(texts[0] ?? "", /wrote \d+ bytes to greet\.sh/);
      assert.match(texts[1] ?? "", /^ran\n[\s\S]*warn[\s\S]*exited with code 3$/);
      assert.match(texts[2] ?? "", new RegExp(`hello from ${local.runtime.workspaceRoot}`));
      const sandboxes = await local.runtime.findByLabels({ [FLUE_INSTANCE_LABEL]: "builder-1" });
      assert.equal(sandboxes.length, 1);
      // A second harness of the same instance gets the same sandbox.
      const again = await sandbox.createSandbox({ id: "builder-1" });
      assert.equal((await again.exec("cat out.txt")).stdout, `hello from ${local.runtime.workspaceRoot}\n`);
      for (const handle of sandboxes) await local.runtime.destroy(handle);
    } finally {
      await flue.stop();
    }
  });
});
