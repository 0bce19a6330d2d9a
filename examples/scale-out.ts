// examples/scale-out.ts — one workload, first on this machine, then on a Kubernetes cluster running agent-sandbox.
// Only the runtime changes. The cluster here is the emulator from @sandport/testkit (API server, warm pool,
// sandbox-router, sandboxd); on a real one pass its API server and token, your warm pool and the router's URL.

import { startKubernetesEmulator } from "@sandport/testkit/emulators/kubernetes";
import { SandboxOrchestrator, type SandboxRuntime, type Workload } from "sandport/core";
import { KubernetesRuntime } from "sandport/kubernetes";
import { LocalRuntime } from "sandport/local";

const workload: Workload = {
  launch: { labels: { job: "ci-42" } },
  files: [{ path: "test.sh", content: 'echo "2 tests passed in $PWD"', mode: 0o755 }],
  steps: [{ argv: ["./test.sh"], timeoutMs: 60_000 }],
};

/** The orchestrator code: the same for every runtime. */
async function runTests(runtime: SandboxRuntime): Promise<string> {
  const result = await new SandboxOrchestrator(runtime).run(workload);
  return `${runtime.provider}: ${result.ok} ${result.steps[0]?.result.stdout.trim()}`;
}

console.log(await runTests(new LocalRuntime()));

const cluster = await startKubernetesEmulator();
try {
  const runtime = new KubernetesRuntime({
    cluster: { server: cluster.apiServerUrl, token: cluster.token }, // and caData: the CA, base64, on a real cluster
    warmPool: "sandboxd-pool",
    routerUrl: cluster.routerUrl,
  });
  console.log(await runTests(runtime));
} finally {
  await cluster.stop();
}
