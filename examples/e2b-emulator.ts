// examples/e2b-emulator.ts — the same code on E2B: swap the runtime. Here against the E2B emulator from
// @sandport/testkit, with the real `e2b` SDK; for the real service pass your apiKey and nothing else.

import { startE2BEmulator } from "@sandport/testkit/emulators/e2b";
import { SandboxOrchestrator } from "sandport/core";
import { E2BRuntime } from "sandport/e2b";

const emulator = await startE2BEmulator();
try {
  const runtime = new E2BRuntime({
    apiKey: emulator.apiKey,
    apiUrl: emulator.apiUrl,
    sandboxUrl: emulator.sandboxUrl,
    domain: emulator.domain,
  });
  const orchestrator = new SandboxOrchestrator(runtime);
  const result = await orchestrator.run({
    launch: { labels: { job: "ci-42" } },
    files: [{ path: "hello.txt", content: "hello from e2b\n" }],
    steps: [{ argv: ["cat", "hello.txt"] }],
  });
  console.log(result.ok, result.steps[0]?.result.stdout.trim());
} finally {
  await emulator.stop();
}
