// examples/openai-agents.ts — an OpenAI Agents SandboxAgent whose sandbox is any Sandport runtime (here local).
// The model is the framework's ScriptedModel so the example runs offline; use a real model in practice.
import { run, setTracingDisabled } from "@openai/agents-core";
import { file, Manifest, SandboxAgent, shell } from "@openai/agents-core/sandbox";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents-core/testing";
import { LocalRuntime } from "sandport/local";
import { SandportSandboxClient } from "sandport/openai-agents";

const agent = new SandboxAgent({
  name: "builder",
  model: new ScriptedModel([
    [functionCall("exec_command", { cmd: "sh test.sh" }, { callId: "call-1" })],
    [assistantMessage("the tests pass")],
  ]),
  instructions: "Run the tests.",
  capabilities: [shell()],
  defaultManifest: new Manifest({ entries: { "test.sh": file({ content: 'echo "2 tests passed in $PWD"' }) } }),
});

setTracingDisabled(true); // the example has no trace exporter

// One sandbox per run, launched by the client and destroyed when the run ends.
const client = new SandportSandboxClient({ runtime: new LocalRuntime(), launch: { labels: { job: "ci-42" } } });
const result = await run(agent, "run the tests", { sandbox: { client } });
for (const item of result.newItems) if (item.type === "tool_call_output_item") console.log(item.output);
console.log(result.finalOutput);
