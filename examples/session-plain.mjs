// examples/session-plain.mjs — the same session in plain JavaScript on Node 20 and 22, without `await using`.
import { SandboxOrchestrator } from "sandport/core";
import { LocalRuntime } from "sandport/local";

const orchestrator = new SandboxOrchestrator(new LocalRuntime());

const session = await orchestrator.session({ labels: { job: "ci-42" } });
try {
  const { stdout } = await session.exec({ argv: ["uname", "-s"] });
  console.log(`${session.id} runs on ${stdout.trim()}`);
} finally {
  await session[Symbol.asyncDispose]();
}
