// examples/agent-native.ts — agent-native's run-code tool running the agent's code in a Sandport sandbox
// (here local), its bridge calls (appAction, ...) reaching the host through the runtime's port forwarding.
// agent-native needs Node 22.22+. Its sandbox seam is not in the package's exports map, so it is imported by file.

import { SandportSandboxAdapter } from "sandport/agent-native";
import { LocalRuntime } from "sandport/local";
import { createRunCodeEntry } from "../node_modules/@agent-native/core/dist/coding-tools/run-code.js";
import { registerSandboxAdapter } from "../node_modules/@agent-native/core/dist/coding-tools/sandbox/index.js";

// Every run-code call now runs in a fresh sandbox, destroyed afterwards.
registerSandboxAdapter(new SandportSandboxAdapter({ runtime: new LocalRuntime() }));

// One read-only app action the sandboxed code may call through the bridge.
const actions = {
  "count-tests": {
    tool: { description: "Counts the passing tests.", parameters: { type: "object" as const, properties: {} } },
    readOnly: true,
    run: async () => ({ passed: 2 }),
  },
};
const runCode = createRunCodeEntry(() => actions);
const code =
  'const { passed } = await appAction("count-tests"); console.log(passed, "tests passed in", process.cwd());';
console.log(await runCode.run({ code }));
