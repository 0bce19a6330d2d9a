// examples/flue.ts — a Flue agent whose sandbox is any Sandport runtime (here local). Flue needs Node 22.19+.
// The model is pi-ai's faux provider so the example runs offline; use a real provider in practice.
import { fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import { init, useModel, useSandbox } from "@flue/runtime";
import { start } from "@flue/runtime/node";
import { sandportSandbox } from "sandport/flue";
import { LocalRuntime } from "sandport/local";

const runtime = new LocalRuntime();
const faux = fauxProvider();
faux.setResponses([
  fauxAssistantMessage([fauxToolCall("bash", { command: 'echo "2 tests passed in $PWD"' })], { stopReason: "toolUse" }),
  (context) => fauxAssistantMessage(`the tests pass: ${JSON.stringify(context.messages.at(-1)?.content)}`),
]);

// One sandbox per Flue instance id, labelled flue.instance=<id>; the application destroys it.
const sandbox = sandportSandbox({ runtime, launch: { labels: { job: "ci-42" } } });
function Tester() {
  useModel(`${faux.provider.id}/${faux.getModel().id}`);
  useSandbox(sandbox);
  return "Run the tests.";
}

const flue = await start({ agents: [Tester], providers: [faux.provider] });
try {
  const agent = init(Tester, { id: "tester-1" });
  console.log((await agent.read(await agent.dispatch("run the tests"))).text);
} finally {
  await flue.stop();
  for (const handle of await runtime.findByLabels({ "flue.instance": "tester-1" })) await runtime.destroy(handle);
}
