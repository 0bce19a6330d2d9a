// The real deepagents agent (createDeepAgent, its own file and execute tools)
// driven by LangChain's fake chat model, with the bridge as its backend,
// against a real LocalRuntime.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { localTestRuntime, namespacesSkipReason } from "@sandport/testkit/fakes";
import { createDeepAgent } from "deepagents";
import { createDeepAgentsSandbox } from "./index.js";

/** Why the tests that assert what only a namespaced sandbox shows (its `/workspace`, its loopback) skip here, if they do. */
const namespacesOnly = await namespacesSkipReason();

const local = await localTestRuntime("langchain");
after(() => local.cleanup());

describe(`createDeepAgent on a LocalRuntime (isolation: ${local.isolation})`, () => {
  test("the model writes a script (write_file), runs it (execute) and reads its output (read_file)", {
    skip: namespacesOnly,
  }, async () => {
    const handle = await local.runtime.launch({});
    try {
      const root = local.runtime.workspaceRoot;
      const backend = await createDeepAgentsSandbox({ runtime: local.runtime, handle });
      const model = fakeModel()
        .respondWithTools([
          {
            name: "write_file",
            args: { file_path: `${root}/greet.sh`, content: 'echo "hello from $(pwd)" > out.txt' },
            id: "w",
          },
        ])
        .respondWithTools([{ name: "execute", args: { command: "sh greet.sh && echo oops >&2 && exit 4" }, id: "x" }])
        .respondWithTools([{ name: "read_file", args: { file_path: `${root}/out.txt` }, id: "r" }])
        .respond(new AIMessage("done"));
      const agent = createDeepAgent({ model, backend });
      const state = await agent.invoke({ messages: [{ role: "user", content: "greet" }] });
      const tools = state.messages
        .filter((message) => message.type === "tool")
        .map(({ content }) => (typeof content === "string" ? content : JSON.stringify(content)));
      assert.equal(tools.length, 3, JSON.stringify(tools));
      assert.match(tools[0] ?? "", /greet\.sh/);
      assert.match(tools[1] ?? "", /\[stderr\] oops/);
      assert.match(tools[1] ?? "", /Exit code: 4/);
      assert.match(tools[2] ?? "", new RegExp(`hello from ${root}`));
      assert.equal(String(state.messages.at(-1)?.content), "done");
    } finally {
      await local.runtime.destroy(handle);
    }
  });
});
