// examples/tanstack-ai.ts — a TanStack AI sandbox definition whose provider is any Sandport runtime (here
// local). TanStack AI creates the sandbox under its key, bootstraps the workspace through the handle,
// resumes it on the next run of the thread, and harness adapters (Claude Code, Codex, ...) run in it.
import { defineSandbox, defineWorkspace } from "@tanstack/ai-sandbox";
import { LocalRuntime } from "sandport/local";
import { sandportSandboxProvider } from "sandport/tanstack-ai";

const runtime = new LocalRuntime();
const sandbox = defineSandbox({
  id: "tester",
  provider: sandportSandboxProvider({ runtime, launch: { labels: { job: "ci-42" } } }),
  workspace: defineWorkspace({
    source: { type: "none" },
    instructions: "Run the tests before you finish.",
    setup: ["printf 'echo \"2 tests passed in $PWD\"' > test.sh"],
  }),
});

const run = { threadId: "thread-1", runId: "run-1" };
const handle = await sandbox.ensure(run);
try {
  const result = await handle.process.exec("sh test.sh");
  console.log(result.exitCode, result.stdout.trim());
  const again = await sandbox.ensure({ ...run, runId: "run-2" });
  console.log("resumed the same sandbox:", again.id === handle.id, await again.fs.read("/workspace/AGENTS.md"));
} finally {
  await sandbox.destroy(run);
}
