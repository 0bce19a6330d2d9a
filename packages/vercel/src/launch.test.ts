// launch through the real @vercel/sandbox SDK (3.5 and 3.0) against the Vercel emulator:
// what a sandbox carries, what is refused before any request, and what happens to a
// launch that fails after its create, or outlives its caller.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { OWNER_LABEL } from "@sandport/core";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { defaultBackendIsolation } from "@sandport/testkit/emulators";
import { Sandbox } from "@vercel/sandbox";
import { emulated, SDK_VERSIONS, type SdkVersion } from "../test/emulated.js";

const CREATE = "POST /v3/sandboxes";

// Only the emulator's namespaced backend (one namespace set per sandbox, as root) enforces an allow list.
const isolation = await defaultBackendIsolation();
const unenforced =
  isolation.isolated && isolation.namespaceScope === "sandbox"
    ? undefined
    : "the emulator's backend enforces an allow list only under bubblewrap with one namespace set per sandbox";

for (const version of Object.keys(SDK_VERSIONS) as SdkVersion[]) {
  describe(`launch with @vercel/sandbox ${version}`, async () => {
    const { emulator, runtime, runtimeWith } = await emulated(
      { owner: "launch-tests", lifetimeMs: 900_000, vcpus: 1 },
      { version },
    );
    const ours = () => emulator.liveSandboxes().filter((sandbox) => sandbox.metadata[OWNER_LABEL] === "launch-tests");
    /** What Vercel keeps of a sandbox, read with the SDK itself. */
    const stored = (name: string) => Sandbox.get({ ...emulator.sdkOptions, name });

    test("a sandbox is named <prefix><launch key>, tagged with the labels and the owner, every setting explicit", async () => {
      emulator.resetRequests();
      const handle = await runtime.launch({
        labels: { job: "42" },
        env: { A: "1" },
        launchKey: "key-1",
        ports: [4001],
      });
      assert.deepEqual(
        { ...handle, createdAt: undefined },
        {
          id: "sandport-launch-tests-key-1",
          provider: "vercel",
          labels: { job: "42" },
          createdAt: undefined,
          resources: { cpus: 1, memoryMiB: 2048 },
        },
        "the resources are what Vercel's answer says it gave (the runtime's default vCPU, 2048 MB each)",
      );
      assert.match(handle.createdAt ?? "", /^\d{4}-\d\d-\d\dT/);
      assert.deepEqual(
        emulator.requests.map((request) => request.route),
        [CREATE],
        "the create alone: the workspace is made by its first use",
      );
      const sandbox = await stored(handle.id);
      assert.deepEqual(sandbox.tags, { job: "42", [OWNER_LABEL]: "launch-tests" });
      assert.deepEqual([sandbox.timeout, sandbox.vcpus, sandbox.persistent], [900_000, 1, true]);
      assert.deepEqual(sandbox.networkPolicy, "allow-all");
      assert.match(sandbox.domain(4001), /^https:\/\/sb-[a-z0-9]+-4001\.vercel\.run$/, "the declared port has a route");
      const result = await runtime.exec(handle, { shell: 'echo "$A"; pwd' });
      assert.equal(result.stdout.split("\n")[0], "1", "the launch env reaches commands");
      assert.match(result.stdout.split("\n")[1] ?? "", /\/workspace$/, "commands start in the workspace");
      await runtime.destroy(handle);
    });

    test("every launch gets a fresh launch key; the spec's lifetime, template and resources win", async () => {
      const handle = await runtime.launch({
        lifetimeMs: 60_000,
        template: "vercel/sandbox/node24",
        resources: { cpus: 4, memoryMiB: 8192 },
      });
      assert.match(handle.id, /^sandport-launch-tests-[0-9a-f-]{36}$/);
      const sandbox = await stored(handle.id);
      assert.deepEqual([sandbox.timeout, sandbox.vcpus, sandbox.image], [60_000, 4, "vercel/sandbox/node24"]);
      assert.deepEqual(handle.resources, { cpus: sandbox.vcpus, memoryMiB: sandbox.memory });
      assert.deepEqual((await runtime.getById(handle.id))?.resources, { cpus: 4, memoryMiB: 8192 }, "a rebuilt handle");
      await runtime.destroy(handle);
    });

    test("an allow list reaches Vercel as its user-defined policy: domains in allow, ranges in subnets.allow", {
      skip: unenforced,
    }, async () => {
      const handle = await runtime.launch({ network: { allow: ["Example.com", "*.npmjs.org", "203.0.113.0/24"] } });
      const sandbox = await stored(handle.id);
      assert.deepEqual(sandbox.networkPolicy, {
        allow: ["example.com", "*.npmjs.org"],
        subnets: { allow: ["203.0.113.0/24"] },
      });
      await runtime.destroy(handle);
    });

    test("a domain with a port is refused before any request, naming the entry", async () => {
      emulator.resetRequests();
      const error = await expectCode(runtime.launch({ network: { allow: ["api.example.com:443"] } }), "UNSUPPORTED");
      assert.equal(error.details.entry, "api.example.com:443");
      assert.equal(emulator.countRequests(), 0);
    });

    test("what Vercel would refuse, or cannot do, is refused before any request", async () => {
      emulator.resetRequests();
      const labels = { a: "1", b: "2", c: "3", d: "4", e: "5" };
      const tooMany = await expectCode(runtime.launch({ labels }), "INVALID_REQUEST");
      assert.match(tooMany.message, /at most 4 labels/);
      await expectCode(runtime.launch({ ports: Array.from({ length: 16 }, (_, i) => 3000 + i) }), "INVALID_REQUEST");
      await expectCode(runtime.launch({ labels: { "sandport.owner": "me" } }), "INVALID_REQUEST");
      await expectCode(runtime.launch({ env: { "BAD NAME": "x" } }), "INVALID_REQUEST");
      await expectCode(runtime.launch({ env: { SANDPORT_EXEC_ID: "forged" } }), "INVALID_REQUEST");
      await expectCode(runtime.launch({ launchKey: "k".repeat(120) }), "INVALID_REQUEST");
      await expectCode(runtime.launch({ launchKey: "has space" }), "INVALID_REQUEST");
      await expectCode(runtime.launch({ resources: { maxProcesses: 10 } }), "UNSUPPORTED");
      await expectCode(runtime.launch({ resources: { diskMiB: 2048 } }), "UNSUPPORTED");
      await expectCode(runtime.launch({ resources: { cpus: 1.5 } }), "UNSUPPORTED");
      // Vercel takes 1 or an even number of vCPUs: 3 (or the 6144 MiB that come with 3) is refused here, not by the API.
      await expectCode(runtime.launch({ resources: { cpus: 3 } }), "UNSUPPORTED");
      await expectCode(runtime.launch({ resources: { memoryMiB: 3 * 2048 } }), "UNSUPPORTED");
      await expectCode(runtime.launch({ resources: { cpus: 2, memoryMiB: 1024 } }), "UNSUPPORTED");
      await expectCode(runtime.launch({ lifetimeMs: -1 }), "INVALID_REQUEST");
      assert.equal(emulator.countRequests(), 0);
      assert.deepEqual(ours(), []);
    });

    test(
      version === "3.0"
        ? "a configured region is UNSUPPORTED before any request: this SDK does not send one"
        : "a configured region is sent, and the sandbox lands there",
      async () => {
        const regional = runtimeWith({ region: "fra1" });
        emulator.resetRequests();
        if (version === "3.0") {
          await expectCode(regional.launch(), "UNSUPPORTED");
          assert.equal(emulator.countRequests(), 0);
          return;
        }
        const handle = await regional.launch();
        assert.equal((await stored(handle.id)).region, "fra1");
        await regional.destroy(handle);
      },
    );

    test("a launch that fails after its create (Vercel placed it elsewhere) destroys the sandbox it made", async () => {
      // This SDK sends no region: refused before any request (above).
      if (version === "3.0") return;
      // The create's answer says another region than the one asked for.
      const elsewhere = runtimeWith({
        region: "fra1",
        fetch: async (input, init) => {
          const response = await emulator.fetch(input, init);
          const url = input instanceof Request ? input.url : String(input);
          const method = init?.method ?? (input instanceof Request ? input.method : "GET");
          if (method !== "POST" || !new URL(url).pathname.endsWith("/v3/sandboxes")) return response;
          const body = (await response.json()) as { sandbox: { region?: string }; session: { region: string } };
          body.session.region = "iad1";
          if (body.sandbox.region !== undefined) body.sandbox.region = "iad1";
          return new Response(JSON.stringify(body), {
            status: response.status,
            headers: { "content-type": "application/json" },
          });
        },
      });
      const failed = await expectCode(elsewhere.launch({ labels: { case: "region" } }), "UNSUPPORTED");
      assert.match(failed.message, /created it in iad1/);
      assert.deepEqual(await elsewhere.settle(), []);
      assert.deepEqual(ours(), [], "the sandbox was destroyed in the background");
    });

    test("a launch aborted while the create is in flight rejects at once; what the create makes is destroyed", async () => {
      emulator.injectFault({ route: CREATE, fault: { kind: "latency", ms: 1_000 } });
      const controller = new AbortController();
      const sent = emulator.countRequests(CREATE);
      const launching = runtime.launch({ labels: { case: "aborted" } }, { signal: controller.signal });
      await waitFor(() => emulator.countRequests(CREATE) > sent, { what: "the create to be sent" });
      const abortedAt = performance.now();
      controller.abort(new Error("gave up"));
      await expectCode(launching, "ABORTED");
      assert.ok(performance.now() - abortedAt < 500, "the call did not wait for the create");
      assert.deepEqual(await runtime.settle(), []);
      assert.equal(emulator.countRequests(CREATE) > 0, true);
      assert.deepEqual(ours(), []);
      assert.deepEqual(await runtime.findByLabels({ case: "aborted" }), []);
    });
  });
}
