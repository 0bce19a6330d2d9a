// examples/kubernetes-kubeconfig.ts — a cluster reached through a kubeconfig you pass (the JSON that
// `kubectl config view --raw -o json` prints; nothing is read from ~/.kube/config), and a launch with env, which
// agent-sandbox serves with a cold start: a sandbox made for the claim from the pool's template, not a warm one.
// For a template without sandboxd, or a router that carries HTTP/1.1 only, add dataPlane: "pod-exec".

import { startKubernetesEmulator } from "@sandport/testkit/emulators/kubernetes";
import { KubernetesRuntime } from "sandport/kubernetes";

const cluster = await startKubernetesEmulator();
try {
  const runtime = new KubernetesRuntime({
    kubeconfig: cluster.kubeconfig, // its user must log in with a token
    warmPool: "sandboxd-pool",
    routerUrl: cluster.routerUrl,
    launchEnv: "cold-start", // the default, "refuse", turns a launch with env away
  });
  const sandbox = await runtime.launch({ env: { GREETING: "hello" } });
  try {
    const result = await runtime.exec(sandbox, { shell: 'echo "$GREETING from $(pwd)"' });
    console.log(result.stdout.trim(), `(isolation: ${runtime.capabilities.modes.isolation})`);
  } finally {
    await runtime.destroy(sandbox);
  }
} finally {
  await cluster.stop();
}
