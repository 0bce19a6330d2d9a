// portEndpoint through the real modal SDK against the Modal emulator: a server
// a spawned command starts is reached through its tunnel; TLS tunnels give
// Modal's https URL; ports not declared at launch are refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode, unusedPort } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const CONTROL = "rpc modal.client.ModalClient/";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "ports-tests" });

/** Fetches `url` until it answers 200 (the server may still be starting). */
async function fetchText(url: string): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const body = await fetch(url)
      .then((response) => (response.ok ? response.text() : undefined))
      .catch(() => undefined);
    if (body !== undefined) return body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never answered`);
}

test("tcp tunnels: a server started with spawn answers at http://host:port, from a reattached handle too", async () => {
  // A server in the emulator's sandboxes listens on this host: take a port nothing else holds.
  const port = await unusedPort();
  const handle = await runtime.launch({ ports: [port] });
  await runtime.writeFiles(handle, [{ path: "site/probe.txt", content: "through the tunnel\n" }]);
  const server = await runtime.spawn(handle, {
    argv: ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1"],
    cwd: "site",
  });
  try {
    const endpoint = await runtime.portEndpoint(handle, port);
    assert.match(endpoint.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(endpoint.headers, undefined, "a tunnel needs no headers");
    assert.equal(await fetchText(`${endpoint.url}/probe.txt`), "through the tunnel\n");
    const reopened = runtimeWith({});
    const found = await reopened.getById(handle.id);
    assert.ok(found);
    assert.deepEqual(await reopened.portEndpoint(found, port), endpoint);
  } finally {
    await server.kill();
    await runtime.destroy(handle);
  }
});

test("tls tunnels give Modal's https URL (TLS ends at Modal; the emulator has none)", async () => {
  const tls = runtimeWith({ tunnels: "tls" });
  const handle = await tls.launch({ ports: [18_902] });
  const endpoint = await tls.portEndpoint(handle, 18_902);
  assert.match(endpoint.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  await expectCode(runtime.portEndpoint(handle, 18_902), "INVALID_REQUEST", "a TLS tunnel has no plain TCP address");
  await tls.destroy(handle);
});

test("a port not declared at launch is INVALID_REQUEST: before any request when launched here", async () => {
  const handle = await runtime.launch({ ports: [18_903] });
  emulator.resetRequests();
  await expectCode(runtime.portEndpoint(handle, 18_904), "INVALID_REQUEST");
  await expectCode(runtime.portEndpoint(handle, 0), "INVALID_REQUEST");
  await expectCode(runtime.portEndpoint(handle, 70_000), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
  const reopened = runtimeWith({});
  await expectCode(reopened.portEndpoint(handle, 18_904), "INVALID_REQUEST");
  assert.ok(emulator.countRequests(`${CONTROL}SandboxGetTunnelsV2`) >= 1, "a reattached handle looks its tunnels up");
  await runtime.destroy(handle);
});
