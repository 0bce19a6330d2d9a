// examples/workload.ts — one orchestrated workload on the embedded local runtime.
import { SandboxOrchestrator } from "sandport/core";
import { LocalRuntime } from "sandport/local";

// Sandboxes live under ~/.cache/sandport/local (for root: /var/lib/sandport/local); `root` moves them.
const runtime = new LocalRuntime();
const orchestrator = new SandboxOrchestrator(runtime, {
  onEvent: (event) => console.log(event.type),
});

const result = await orchestrator.run({
  launch: { labels: { job: "ci-42" } },
  files: [{ path: "app/test.sh", content: 'echo "2 tests passed"; echo \'{"passed":2}\' > report.json', mode: 0o755 }],
  steps: [{ argv: ["./test.sh"], cwd: "app", timeoutMs: 60_000 }],
  collect: ["app/report.json"],
  teardown: "always",
});
console.log(
  result.ok,
  result.steps.map((step) => step.result.stdout.trim()),
);
console.log(new TextDecoder().decode(result.collected["app/report.json"]));
