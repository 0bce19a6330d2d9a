// Nothing ambient: in a child process whose KUBECONFIG, ~/.kube/config and
// in-cluster variables (KUBERNETES_SERVICE_HOST/PORT) all point at a
// tripwire holding a canary token, a full workload must reach only the
// emulator named in the options, no request may carry the canary, and no
// kubeconfig or service-account file may be read (the child watches every
// file read; the service-account files themselves, under /var/run/secrets,
// cannot be planted here, so their reads are what is watched).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { kubernetesEmulatorSkipReason, startKubernetesEmulator } from "@sandport/testkit/emulators/kubernetes";

const CANARY_TOKEN = "canary-token-0123456789abcdef";

test("KUBECONFIG, ~/.kube/config and the in-cluster variables are never used, nor any kubeconfig or service-account file read", {
  skip: await kubernetesEmulatorSkipReason(),
}, async () => {
  const tripped: string[] = [];
  const tripwire = createServer((request, response) => {
    tripped.push(`${request.method} ${request.url}`);
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => tripwire.listen(0, "127.0.0.1", resolve));
  const port = (tripwire.address() as AddressInfo).port;
  const tripwireUrl = `http://127.0.0.1:${port}`;
  const scratch = await mkdtemp(join(tmpdir(), "sandport-kubernetes-ambient-"));
  const kubeconfig = JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    "current-context": "trap",
    contexts: [{ name: "trap", context: { cluster: "trap", user: "trap", namespace: "trap" } }],
    clusters: [{ name: "trap", cluster: { server: tripwireUrl } }],
    users: [{ name: "trap", user: { token: CANARY_TOKEN } }],
  });
  await mkdir(join(scratch, ".kube"));
  await writeFile(join(scratch, ".kube", "config"), kubeconfig);
  await writeFile(join(scratch, "kubeconfig-trap"), kubeconfig);
  const emulator = await startKubernetesEmulator();
  try {
    const child = spawn(
      process.execPath,
      [
        "--import",
        import.meta.resolve("tsx"),
        fileURLToPath(new URL("../test/ambient-child.ts", import.meta.url)),
        emulator.apiServerUrl,
        emulator.token,
        emulator.routerUrl,
      ],
      {
        cwd: scratch,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: scratch,
          KUBECONFIG: join(scratch, "kubeconfig-trap"),
          KUBERNETES_SERVICE_HOST: "127.0.0.1",
          KUBERNETES_SERVICE_PORT: String(port),
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(code, 0, stderr);
    const [filesRead, done] = stdout.split("\n");
    assert.equal(done, "ok");
    assert.deepEqual(JSON.parse(filesRead as string), [], "kubeconfig or service-account files were read");
    assert.deepEqual(tripped, [], "requests reached the tripwire the ambient settings point at");
    assert.ok(emulator.requests.length > 8, `the workload made ${emulator.requests.length} requests`);
    for (const request of emulator.requests) {
      assert.ok(!request.path.includes(emulator.token), `${request.route}: the token is in a URL`);
      for (const [name, value] of Object.entries(request.headers)) {
        assert.ok(!String(value).includes(CANARY_TOKEN), `${request.route} header ${name} carries the canary token`);
      }
    }
  } finally {
    await emulator.stop();
    await new Promise((resolve) => tripwire.close(resolve));
    await rm(scratch, { recursive: true, force: true });
  }
});
