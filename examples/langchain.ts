// examples/langchain.ts — a LangChain deepagents agent whose sandbox is any Sandport runtime (here local).
// The model is LangChain's fake chat model so the example runs offline; use a real model in practice.
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createDeepAgent } from "deepagents";
import { createDeepAgentsSandbox } from "sandport/langchain";
import { LocalRuntime } from "sandport/local";

const runtime = new LocalRuntime();
const sandbox = await runtime.launch({ labels: { job: "ci-42" } });
try {
  const backend = await createDeepAgentsSandbox({ runtime, handle: sandbox });
  const model = fakeModel()
    .respondWithTools([
      { name: "write_file", args: { file_path: "/workspace/test.sh", content: "echo 2 tests passed" } },
    ])
    .respondWithTools([{ name: "execute", args: { command: "sh test.sh" } }])
    .respond(new AIMessage("the tests pass"));
  const agent = createDeepAgent({ model, backend });
  const { messages } = await agent.invoke({ messages: [{ role: "user", content: "run the tests" }] });
  for (const message of messages) if (message.type === "tool") console.log(message.content);
  console.log(messages.at(-1)?.content);
} finally {
  await runtime.destroy(sandbox);
}
