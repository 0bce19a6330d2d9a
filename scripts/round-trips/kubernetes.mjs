// Round trips of the standard workload through KubernetesRuntime (agent-sandbox) on both data planes,
// counted by the Kubernetes emulator from @sandport/testkit (see workload.mjs): the API server (claims,
// watches, pod exec over WebSocket) and the sandbox-router (sandboxd's file REST API and gRPC process
// service). The emulator's pods need their own /workspace: root, with bubblewrap or `unshare`.

import { portOf } from "./wire-bytes.mjs";
import { benchProvider, loadBuilt } from "./workload.mjs";

const { startKubernetesEmulator, kubernetesEmulatorSkipReason } = await loadBuilt("testkit", "emulators/kubernetes");

/** Both launches of a phase share a claim and a watch: the sandbox's name comes from the claim's status. */
const LAUNCH = [
  2,
  "POST a SandboxClaim, then one watch until it is Ready and names its Sandbox (the pod the router routes to)",
];
const DESTROY = [1, "DELETE the SandboxClaim (its Sandbox and pod go with it)"];

const planes = [
  {
    dataPlane: "sandboxd",
    pool: "sandboxd-pool",
    template: "sandboxd",
    minimum: {
      launch: LAUNCH,
      write: [
        20,
        "sandboxd's file API is one PUT /v1/files/{path} per file (no batch; a tar through the process API would be 2)",
      ],
      exec: [3, "one ProcessService Start per command: its stream carries the process id, the output and the exit"],
      read: [2, "one GET /v1/files/{path} per file"],
      destroy: DESTROY,
    },
  },
  {
    dataPlane: "pod-exec",
    pool: "plain-pool",
    template: "plain",
    minimum: {
      launch: LAUNCH,
      write: [1, "one pod exec whose stdin carries every file (an archive unpacked by one command)"],
      exec: [3, "one pod exec WebSocket per command: its channels carry stdin, the output and the exit status"],
      read: [2, "one pod exec (`cat`) per file: the port reads one file a call"],
      destroy: DESTROY,
    },
  },
];

const skip = await kubernetesEmulatorSkipReason();
if (skip) {
  console.log(`KubernetesRuntime: not counted, the emulator cannot run here (${skip})\n`);
} else {
  for (const plane of planes) {
    await benchProvider({
      adapter: `Kubernetes (agent-sandbox, ${plane.dataPlane})`,
      title: `KubernetesRuntime over ${plane.dataPlane} (against the Kubernetes emulator)`,
      // Two warm sandboxes, so a launch right after a destroy still finds one Ready.
      start: () =>
        startKubernetesEmulator({ warmPools: [{ name: plane.pool, template: plane.template, replicas: 2 }] }),
      runtime: async (load, emulator) =>
        new (await load("kubernetes")).KubernetesRuntime({
          cluster: { server: emulator.apiServerUrl, token: emulator.token },
          namespace: emulator.namespace,
          warmPool: plane.pool,
          dataPlane: plane.dataPlane,
          routerUrl: emulator.routerUrl,
          owner: "round-trip-count",
        }),
      minimum: plane.minimum,
      notes: [
        "launch  ±0  the created claim is Ready at once (a warm pool), so no watch; a GET of its Sandbox names the pod",
        "            (and the container pod exec goes to); a claim not Ready yet is watched from the create's version",
        "reads   ±0  one command resolves the path, refuses one that leaves the workspace through a symlink, and prints",
        "            the file" +
          (plane.dataPlane === "pod-exec"
            ? " (base64, any size)"
            : " (base64, up to 256 KiB; a larger one is then downloaded)"),
        "destroy +1  one watch of the claim from the DELETE's resourceVersion ends at its DELETED event (verified cleanup:",
        "            a claim deleted in the foreground goes after its Sandbox and pod), however long that takes",
      ],
      routes: (emulator) =>
        emulator.requests.map((request) =>
          request.route.replace(/\/apis?\/([a-z0-9.-]+\/)?v1(beta1)?\/namespaces\/:namespace/, "…"),
        ),
      // The router's front forwards each connection to an internal server: count its public port only.
      wirePorts: (emulator) => [portOf(emulator.apiServerUrl), portOf(emulator.routerUrl)],
      check: async (emulator) => {
        await emulator.settle();
        const claimed = emulator
          .liveSandboxes()
          .filter((sandbox) => !("agents.x-k8s.io/warm-pool-sandbox" in sandbox.metadata));
        if (emulator.unknownRoutes.length > 0 || claimed.length > 0)
          throw new Error(`left behind: ${JSON.stringify({ unknown: emulator.unknownRoutes, claimed })}`);
      },
    });
  }
}
