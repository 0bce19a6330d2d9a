// examples/vercel-emulator.ts — the same code on Vercel Sandbox: swap the runtime. Here against the Vercel
// emulator from @sandport/testkit, with the real `@vercel/sandbox` SDK, reached through the emulator's fetch;
// for the real service pass your token, teamId and projectId and nothing else.

import { startVercelEmulator } from "@sandport/testkit/emulators/vercel";
import { SandboxOrchestrator } from "sandport/core";
import { VercelRuntime } from "sandport/vercel";

const emulator = await startVercelEmulator();
try {
  const { token, teamId, projectId } = emulator.credentials;
  const runtime = new VercelRuntime({ token, teamId, projectId, fetch: emulator.fetch });
  const orchestrator = new SandboxOrchestrator(runtime);
  const result = await orchestrator.run({
    launch: { labels: { job: "ci-42" } },
    files: [{ path: "hello.txt", content: "hello from vercel\n" }],
    steps: [{ argv: ["cat", "hello.txt"] }],
  });
  console.log(result.ok, result.steps[0]?.result.stdout.trim());
} finally {
  await emulator.stop();
}
