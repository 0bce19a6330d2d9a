// The real OpenAI Agents runner drives a SandboxAgent (shell + filesystem
// capabilities) with the framework's own ScriptedModel, through the bridge,
// against a real LocalRuntime.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { run, setTracingDisabled, tool } from "@openai/agents-core";
import { file, filesystem, Manifest, SandboxAgent, shell } from "@openai/agents-core/sandbox";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents-core/testing";
import { localTestRuntime, namespacesSkipReason } from "@sandport/testkit/fakes";
import { z } from "zod";
import { SandportSandboxClient } from "./index.js";

/** Why the tests that assert what only a namespaced sandbox shows (its `/workspace`, its loopback) skip here, if they do. */
const namespacesOnly = await namespacesSkipReason();

setTracingDisabled(true);
const local = await localTestRuntime("openai-agents");
after(() => local.cleanup());

/** Every tool output the model was sent back, in order. */
function toolOutputs(model: ScriptedModel): string[] {
  const last = model.lastCall?.request.input;
  if (!Array.isArray(last)) return [];
  return last
    .filter((item) => item.type === "function_call_result" || item.type === "apply_patch_call_output")
    .map((item) => JSON.stringify((item as { output: unknown }).output));
}

describe(`SandboxAgent on a LocalRuntime (isolation: ${local.isolation})`, () => {
  test("the model writes a script (apply_patch), runs it and reads its output (exec_command)", {
    skip: namespacesOnly,
  }, async () => {
    const model = new ScriptedModel([
      [
        {
          type: "apply_patch_call",
          callId: "write",
          status: "completed",
          operation: {
            type: "create_file",
            path: "greet.sh",
            diff: '+echo "hello $NAME from $(pwd)" > out.txt\n+cat notes/readme.md\n',
          },
        },
      ],
      [functionCall("exec_command", { cmd: "sh greet.sh && cat out.txt" }, { callId: "run" })],
      [functionCall("exec_command", { cmd: "exit 3" }, { callId: "fail" })],
      [assistantMessage("done")],
    ]);
    const agent = new SandboxAgent({
      name: "builder",
      model,
      instructions: "Build it.",
      capabilities: [shell(), filesystem()],
      defaultManifest: new Manifest({
        entries: { "notes/readme.md": file({ content: "# notes\n" }) },
        environment: { NAME: "sandport" },
      }),
    });
    const client = new SandportSandboxClient({ runtime: local.runtime, launch: { labels: { test: "openai-run" } } });
    const result = await run(agent, "build it", { sandbox: { client } });
    assert.equal(result.finalOutput, "done");
    model.assertComplete();
    const [written, ran, failed] = toolOutputs(model);
    assert.match(written ?? "", /Created greet\.sh/);
    assert.match(ran ?? "", /Process exited with code 0/);
    assert.match(ran ?? "", /# notes/);
    assert.match(ran ?? "", new RegExp(`hello sandport from ${local.runtime.workspaceRoot}`));
    assert.match(failed ?? "", /Process exited with code 3/);
    // The runner owned the session, so the sandbox is gone after the run.
    assert.deepEqual(await local.runtime.findByLabels({ test: "openai-run" }), []);
  });

  test("a run paused for approval: its RunState keeps the session, with no ephemeral environment value", async () => {
    const deploy = tool({
      name: "deploy",
      description: "Deploys the build.",
      parameters: z.object({}),
      needsApproval: true,
      execute: async () => "deployed",
    });
    const agent = new SandboxAgent({
      name: "deployer",
      model: new ScriptedModel([
        [functionCall("exec_command", { cmd: 'test -n "$API_TOKEN" && echo token-set' }, { callId: "check" })],
        [functionCall("deploy", {}, { callId: "deploy" })],
        [assistantMessage("deployed")],
      ]),
      instructions: "Deploy.",
      tools: [deploy],
      capabilities: [shell()],
      defaultManifest: new Manifest({
        environment: { PUBLIC_NAME: "visible-value", API_TOKEN: { value: "secret-token-value", ephemeral: true } },
      }),
    });
    const client = new SandportSandboxClient({ runtime: local.runtime, launch: { labels: { test: "openai-paused" } } });
    const result = await run(agent, "deploy", { sandbox: { client } });
    try {
      assert.equal(result.interruptions.length, 1);
      const persisted = result.state.toString();
      // The command saw the token; the state the caller stores keeps the session but never the token.
      assert.match(persisted, /token-set/);
      assert.match(persisted, /"PUBLIC_NAME":"visible-value"/);
      assert.doesNotMatch(persisted, /secret-token-value/);
    } finally {
      for (const sandbox of await local.runtime.findByLabels({ test: "openai-paused" }))
        await local.runtime.destroy(sandbox);
    }
  });
});
