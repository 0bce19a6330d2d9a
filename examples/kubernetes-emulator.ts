// examples/kubernetes-emulator.ts — the same code on your own Kubernetes cluster with agent-sandbox: swap the
// runtime. Here against the cluster emulator from @sandport/testkit (API server, warm pool, sandbox-router and
// sandboxd); for a real cluster pass its server, token and CA, your warm pool and the router's URL.

import { startKubernetesEmulator } from "@sandport/testkit/emulators/kubernetes";
import { SandboxOrchestrator } from "sandport/core";
import { KubernetesRuntime } from "sandport/kubernetes";

const cluster = await startKubernetesEmulator();
try {
  const runtime = new KubernetesRuntime({
    cluster: { server: cluster.apiServerUrl, token: cluster.token },
    warmPool: "sandboxd-pool",
    routerUrl: cluster.routerUrl,
  });
  const orchestrator = new SandboxOrchestrator(runtime);
  const result = await orchestrator.run({
    launch: { labels: { job: "ci-42" } },
    files: [{ path: "hello.txt", content: "hello from kubernetes\n" }],
    steps: [{ argv: ["cat", "hello.txt"] }],
  });
  console.log(result.ok, result.steps[0]?.result.stdout.trim());
} finally {
  await cluster.stop();
}
