// What a launch sends and what the claim says, against the cluster emulator:
// warm adoption, env refused unless a cold start is accepted, the lifetime as
// shutdownTime, ownership on reattach, destroy that leaves no sandbox or pod,
// and stop/start.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated, kubernetesSkip } from "../test/emulated.js";

describe("KubernetesRuntime launches", { skip: kubernetesSkip }, async () => {
  const { emulator, runtime, runtimeWith } = await emulated({ owner: "launch" });

  /** An object as the API server answers it, read loosely: each test asserts the fields it reads. */
  // biome-ignore lint/suspicious/noExplicitAny: API objects are read field by field, each asserted.
  type Json = Record<string, any>;

  /** One object of the API server, as it answers (`undefined` on 404). */
  async function get(path: string): Promise<Json | undefined> {
    const response = await fetch(`${emulator.apiServerUrl}${path}`, {
      headers: { authorization: `Bearer ${emulator.token}` },
    });
    if (response.status === 404) return undefined;
    return (await response.json()) as Json;
  }
  const claimPath = (name: string) =>
    `/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/${emulator.namespace}/sandboxclaims/${name}`;
  const sandboxPath = (name: string) =>
    `/apis/agents.x-k8s.io/v1beta1/namespaces/${emulator.namespace}/sandboxes/${name}`;

  describe("launch", () => {
    test("a warm launch adopts a pool sandbox; the claim carries the pool, digest labels and the lifetime", async () => {
      const before = Date.now();
      const handle = await runtime.launch({ labels: { job: "42" }, lifetimeMs: 600_000 });
      const claim = await get(claimPath(handle.id));
      assert.equal(claim?.spec.warmPoolRef.name, "sandboxd-pool");
      const shutdown = Date.parse(claim?.spec.lifecycle.shutdownTime);
      assert.ok(shutdown >= before + 600_000 && shutdown <= Date.now() + 600_000, claim?.spec.lifecycle.shutdownTime);
      assert.equal(claim?.spec.lifecycle.shutdownPolicy, "DeleteForeground");
      assert.equal(claim?.spec.env, undefined);
      const sandbox = await get(sandboxPath(claim?.status.sandbox.name));
      assert.equal(sandbox?.metadata.labels["agents.x-k8s.io/launch-type"], "warm");
      for (const key of Object.keys(claim?.metadata.labels ?? {}))
        assert.match(key, /^label\.sandport\.dev\/[0-9a-f]{40}$/);
      await runtime.destroy(handle);
    });

    test("env is refused by default (it would force a cold start), before any claim is made", async () => {
      const creates = emulator.countRequests(/POST .*sandboxclaims/);
      await expectCode(runtime.launch({ env: { TOKEN: "x" } }), "UNSUPPORTED");
      assert.equal(emulator.countRequests(/POST .*sandboxclaims/), creates);
    });

    test('with launchEnv "cold-start" env reaches commands, from a sandbox started cold for the claim', async () => {
      const cold = runtimeWith({ launchEnv: "cold-start" });
      const handle = await cold.launch({ env: { FROM_LAUNCH: "yes" } });
      assert.equal((await cold.exec(handle, { shell: 'echo "$FROM_LAUNCH"' })).stdout, "yes\n");
      const claim = await get(claimPath(handle.id));
      assert.deepEqual(claim?.spec.env, [{ name: "FROM_LAUNCH", value: "yes" }]);
      const sandbox = await get(sandboxPath(claim?.status.sandbox.name));
      assert.equal(sandbox?.metadata.labels["agents.x-k8s.io/launch-type"], "cold");
      await cold.destroy(handle);
    });

    test("resources, an allow list and a network the template does not give are refused", async () => {
      await expectCode(runtime.launch({ resources: { cpus: 2 } }), "UNSUPPORTED");
      await expectCode(runtime.launch({ network: { allow: ["example.com"] } }), "UNSUPPORTED");
      await expectCode(runtime.launch({ network: "none" }), "UNSUPPORTED");
    });
  });

  describe("ownership, destroy and lifecycle", () => {
    test("another owner's claim is FOREIGN_SANDBOX and never listed", async () => {
      const handle = await runtime.launch({ labels: { shared: "1" } });
      const other = runtimeWith({ owner: "someone-else" });
      await expectCode(other.getById(handle.id), "FOREIGN_SANDBOX");
      assert.deepEqual(await other.findByLabels({ shared: "1" }), []);
      await expectCode(other.destroy(handle), "FOREIGN_SANDBOX");
      await runtime.destroy(handle);
    });

    test("destroy resolves once the claim, its sandbox and its pod are gone", async () => {
      const handle = await runtime.launch();
      const sandboxName = (await get(claimPath(handle.id)))?.status.sandbox.name as string;
      await runtime.destroy(handle);
      assert.equal(await get(claimPath(handle.id)), undefined);
      assert.equal(await get(sandboxPath(sandboxName)), undefined);
      assert.equal(await get(`/api/v1/namespaces/${emulator.namespace}/pods/${sandboxName}`), undefined);
      assert.ok(emulator.requests.some((request) => request.method === "DELETE" && /sandboxclaims/.test(request.path)));
    });

    for (const dataPlane of ["sandboxd", "pod-exec"] as const) {
      test(`over ${dataPlane}, a destroy is one DELETE and one watch that ends at the claim's DELETED event`, async () => {
        const planeRuntime = runtimeWith({ dataPlane });
        const handle = await planeRuntime.launch();
        const sandboxName = (await get(claimPath(handle.id)))?.status.sandbox.name as string;
        emulator.resetRequests();
        await planeRuntime.destroy(handle);
        const claims = "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/:namespace/sandboxclaims";
        const routes = emulator.requests.map((request) => request.route);
        assert.deepEqual(routes, [`DELETE ${claims}/:name`, `GET ${claims}`], routes.join(", "));
        assert.match(emulator.requests[1]?.path ?? "", /[?&]watch=true/);
        assert.equal(await get(claimPath(handle.id)), undefined);
        assert.equal(await get(sandboxPath(sandboxName)), undefined);
        assert.equal(await get(`/api/v1/namespaces/${emulator.namespace}/pods/${sandboxName}`), undefined);
      });
    }

    test("stop suspends (the pod goes), start resumes; files under the workspace survive in the emulator", async () => {
      const handle = await runtime.launch();
      const sandboxName = (await get(claimPath(handle.id)))?.status.sandbox.name as string;
      await runtime.writeFiles(handle, [{ path: "kept.txt", content: "kept" }]);
      await runtime.stop(handle);
      assert.equal((await get(sandboxPath(sandboxName)))?.spec.operatingMode, "Suspended");
      assert.equal(await get(`/api/v1/namespaces/${emulator.namespace}/pods/${sandboxName}`), undefined);
      await runtime.start(handle);
      assert.equal((await runtime.exec(handle, { argv: ["cat", "kept.txt"] })).stdout, "kept");
      await runtime.destroy(handle);
      assert.deepEqual(await runtime.settle(), []);
    });

    test("portEndpoint is the router with the pod in headers, no credential anywhere", async () => {
      const handle = await runtime.launch();
      const endpoint = await runtime.portEndpoint(handle, 8080);
      assert.equal(endpoint.url, emulator.routerUrl);
      assert.equal(endpoint.headers?.["x-sandbox-port"], "8080");
      assert.ok(!JSON.stringify(endpoint).includes(emulator.token));
      const health = await fetch(`${endpoint.url}/v1/health`, { headers: endpoint.headers });
      assert.equal(health.status, 200);
      await runtime.destroy(handle);
    });
  });

  describe("on the pod-exec plane, nothing but the claim's own requests", () => {
    const EXEC = "GET /api/v1/namespaces/:namespace/pods/:name/exec";
    const atRoot = 'test "$PWD" = /workspace && test -w . && echo in-workspace';

    test("the launch sends no exec; the first command in the workspace, one exec, finds it", async () => {
      const podExec = runtimeWith({ dataPlane: "pod-exec" });
      emulator.resetRequests();
      const handle = await podExec.launch();
      const launchRoutes = emulator.requests.map((request) => request.route);
      // The claim, a watch from the created claim's version while it is not Ready (the emulator's warm pool
      // answers Ready at once), its Sandbox (the pod's and the container's names): no read of the claim, no exec.
      const claims = "/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/:namespace/sandboxclaims";
      assert.deepEqual(
        launchRoutes.filter((route) => route !== `GET ${claims}`),
        [`POST ${claims}`, "GET /apis/agents.x-k8s.io/v1beta1/namespaces/:namespace/sandboxes/:name"],
        launchRoutes.join(", "),
      );
      emulator.resetRequests();
      const ran = await podExec.exec(handle, { shell: atRoot });
      assert.deepEqual([ran.exitCode, ran.stdout], [0, "in-workspace\n"], ran.stderr);
      // One exec: the container's name came with the Sandbox, so the pod is not read.
      assert.deepEqual(
        emulator.requests.map((request) => request.route),
        [EXEC],
      );
      await podExec.destroy(handle);
    });
  });
});
