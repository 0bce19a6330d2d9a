// examples/daytona-emulator.ts — the same code on Daytona: swap the runtime. Here against the Daytona emulator
// from @sandport/testkit, with the real Daytona SDK; for the service pass your apiKey (and target) and nothing else.

import { startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { SandboxOrchestrator } from "sandport/core";
import { DaytonaRuntime } from "sandport/daytona";

const emulator = await startDaytonaEmulator();
try {
  const runtime = new DaytonaRuntime({
    apiKey: emulator.apiKey,
    apiUrl: emulator.apiUrl,
    target: emulator.target,
  });
  const orchestrator = new SandboxOrchestrator(runtime);
  const result = await orchestrator.run({
    launch: { labels: { job: "ci-42" } },
    files: [{ path: "hello.txt", content: "hello from daytona\n" }],
    steps: [{ argv: ["cat", "hello.txt"] }],
  });
  console.log(result.ok, result.steps[0]?.result.stdout.trim());
} finally {
  await emulator.stop();
}
