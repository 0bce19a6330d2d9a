// With canary values in every E2B_* variable the SDK reads, a full workload
// through E2BRuntime and the real e2b SDK must send every request to the
// configured emulator, and no request may carry a canary value. A tripwire
// server stands where E2B_API_URL and E2B_SANDBOX_URL point.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { delay } from "@sandport/testkit/assertions";
import { startE2BEmulator } from "@sandport/testkit/emulators/e2b";
import { E2BRuntime } from "./e2b-runtime.js";
import { createE2BSdkLoader } from "./internal/sdk.js";
import type { E2BRuntimeOptions } from "./options.js";

const CANARY_KEY = "e2b_canary_0123456789abcdef0123456789abcdef";
const CANARY_DOMAIN = "canary-domain.invalid";

test("E2B_* variables in the environment are never used: no request carries them or goes elsewhere", async () => {
  const tripped: string[] = [];
  const tripwire = createServer((request: IncomingMessage, response) => {
    tripped.push(`${request.method} ${request.url} (X-API-KEY ${request.headers["x-api-key"]})`);
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => tripwire.listen(0, "127.0.0.1", resolve));
  const tripwireUrl = `http://127.0.0.1:${(tripwire.address() as AddressInfo).port}`;
  const canaries: Record<string, string> = {
    E2B_API_KEY: CANARY_KEY,
    E2B_DOMAIN: CANARY_DOMAIN,
    E2B_API_URL: tripwireUrl,
    E2B_SANDBOX_URL: tripwireUrl,
    E2B_DEBUG: "true",
  };
  const saved = Object.fromEntries(Object.keys(canaries).map((name) => [name, process.env[name]]));
  Object.assign(process.env, canaries);
  const emulator = await startE2BEmulator();
  try {
    const options: E2BRuntimeOptions = {
      apiKey: emulator.apiKey,
      apiUrl: emulator.apiUrl,
      sandboxUrl: emulator.sandboxUrl,
      domain: emulator.domain,
      owner: "ambient-test",
    };
    const runtime = new E2BRuntime(options);
    const handle = await runtime.launch({ labels: { probe: "ambient" }, env: { FROM_LAUNCH: "1" } });
    await runtime.writeFiles(handle, [{ path: "in/a.txt", content: "a" }]);
    assert.equal((await runtime.exec(handle, { argv: ["cat", "in/a.txt"] })).stdout, "a");
    for await (const _event of runtime.execStream(handle, { shell: "echo streamed" })) {
      // drain
    }
    const ref = await runtime.startCommand(handle, { sessionId: "ambient", shell: "echo async" });
    while ((await runtime.commandStatus(handle, ref)).state === "running") await delay(30);
    assert.equal((await runtime.commandLogs(handle, ref)).stdout, "async\n");
    assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "in/a.txt")), "a");
    await runtime.mkdir(handle, "made");
    assert.ok((await runtime.listDir(handle, ".")).some((entry) => entry.name === "made"));
    await runtime.stat(handle, "in/a.txt");
    await runtime.remove(handle, "made");
    assert.equal((await runtime.findByLabels({ probe: "ambient" })).length, 1);
    await runtime.stop(handle);
    await runtime.start(handle);
    // A second instance reattaches (getById, then connect on first use).
    const reopened = new E2BRuntime(options);
    const found = await reopened.getById(handle.id);
    assert.ok(found);
    assert.equal((await reopened.exec(found, { argv: ["true"] })).exitCode, 0);
    await reopened.destroy(found);

    assert.deepEqual(tripped, [], "requests reached the tripwire that E2B_API_URL / E2B_SANDBOX_URL point at");
    assert.deepEqual(emulator.unknownRoutes, []);
    assert.ok(emulator.requests.length > 20, `the workload made ${emulator.requests.length} requests`);
    for (const request of emulator.requests) {
      for (const [name, value] of Object.entries(request.headers)) {
        for (const canary of [CANARY_KEY, CANARY_DOMAIN, tripwireUrl]) {
          assert.ok(!value.includes(canary), `${request.route} header ${name} carries a canary value`);
        }
      }
      assert.ok(!request.path.includes(CANARY_DOMAIN), `${request.route} path carries the canary domain`);
      if (request.headers["x-api-key"] !== undefined) assert.equal(request.headers["x-api-key"], emulator.apiKey);
    }

    // The trap is armed: the SDK left to itself does read the canaries and calls the tripwire.
    const sdk = await createE2BSdkLoader()();
    await sdk.Sandbox.list({ query: { metadata: {}, state: ["running"] }, limit: 1 } as never)
      .nextItems()
      .catch(() => undefined);
    assert.equal(tripped.length, 1, "the unconfigured SDK went to E2B_API_URL");
    assert.match(tripped[0] ?? "", new RegExp(`^GET /v2/sandboxes.*\\(X-API-KEY ${CANARY_KEY}\\)$`));
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await emulator.stop();
    await new Promise((resolve) => tripwire.close(resolve));
  }
});
