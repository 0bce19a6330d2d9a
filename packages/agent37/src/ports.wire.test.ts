// Port endpoints against the emulator: a port declared at launch is a public
// port with its own URL and no header (the key never goes to the caller's own
// server); a template port is its URL with the key in a header, never in the
// URL; any other port is refused, naming the ones that can be reached.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode, unusedPort, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "ports-tests" });

test("a declared port serves a server in the instance through its public URL", async () => {
  const port = await unusedPort();
  const handle = await runtime.launch({ ports: [port] });
  await runtime.writeFiles(handle, [{ path: "site/probe.txt", content: "served\n" }]);
  // On Agent37 a `nohup … &` from exec outlives the exec; the emulator's backend ends what a command
  // leaves behind, so the server is started on the instance's backend sandbox directly.
  const [backendHandle] = (await emulator.backend.findByLabels?.({})) ?? [];
  assert.ok(backendHandle && emulator.backend.startCommand);
  await emulator.backend.startCommand(backendHandle, {
    sessionId: `http-${port}`,
    argv: ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1"],
    cwd: "workspace/site",
  });
  const endpoint = await runtime.portEndpoint(handle, port);
  assert.match(endpoint.url, /^https?:\/\/[^/]+$/);
  assert.equal(endpoint.headers, undefined, "a public port gets no key");
  const body = await waitFor(
    async () => {
      const response = await fetch(`${endpoint.url}/probe.txt`).catch(() => undefined);
      if (response?.status === 200) return response.text();
      await response?.body?.cancel();
      return undefined;
    },
    { timeoutMs: 15_000, what: "the server answering through its public port" },
  );
  assert.equal(body, "served\n");
  await runtime.destroy(handle);
});

test("a template port carries the key in the chosen header, never in its URL; other ports are refused", async () => {
  const handle = await runtime.launch();
  const endpoint = await runtime.portEndpoint(handle, 3737);
  assert.deepEqual(endpoint.headers, { authorization: `Bearer ${emulator.apiKey}` });
  assert.ok(!endpoint.url.includes(emulator.apiKey));
  const keyed = await runtimeWith({ instanceAuth: "x-agent37-key" }).portEndpoint(handle, 3737);
  assert.deepEqual(keyed.headers, { "x-agent37-key": emulator.apiKey });
  const error = await expectCode(runtime.portEndpoint(handle, 8080), "INVALID_REQUEST");
  assert.match(error.message, /reachable are 3737/);
  await runtime.destroy(handle);
});
