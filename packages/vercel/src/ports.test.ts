// portEndpoint through the real @vercel/sandbox SDK against the Vercel emulator: the
// `https://<subdomain>.vercel.run` address of a port declared at launch reaches a server
// in the sandbox; an undeclared port is refused.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const GET = "GET /v2/sandboxes/:name";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "ports-tests" });

/** A TCP port free right now: the emulator's sandboxes share this machine's ports. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("a declared port's endpoint is its preview URL, and reaches the server in the sandbox", async () => {
  const port = await freePort();
  const handle = await runtime.launch({ ports: [port] });
  await runtime.writeFiles(handle, [{ path: "site/hello.txt", content: "hello from the sandbox\n" }]);
  await runtime.startCommand(handle, {
    sessionId: "server",
    argv: ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1"],
    cwd: "site",
  });
  emulator.resetRequests();
  const endpoint = await runtime.portEndpoint(handle, port);
  assert.match(endpoint.url, new RegExp(`^https://sb-[a-z0-9]+-${port}\\.vercel\\.run$`));
  assert.equal(endpoint.headers, undefined, "preview URLs need no headers");
  assert.equal(emulator.countRequests(), 0, "the routes came with the create");
  const body = await waitFor(
    async () => {
      const response = await fetch(`${endpoint.url}/hello.txt`).catch(() => undefined);
      return response?.status === 200 ? response.text() : void (await response?.body?.cancel());
    },
    { intervalMs: 100, what: "the server to answer" },
  );
  assert.equal(body, "hello from the sandbox\n");
  const again = await runtimeWith({}).portEndpoint(handle, port);
  assert.equal(again.url, endpoint.url, "another instance gets the same address");
  assert.equal(emulator.countRequests(GET), 1, "from the routes of one get (which never resumes)");
  await runtime.destroy(handle);
});

test("an undeclared port is INVALID_REQUEST; a malformed one is refused before any request", async () => {
  const handle = await runtime.launch({ ports: [4100] });
  const refused = await expectCode(runtime.portEndpoint(handle, 4101), "INVALID_REQUEST");
  assert.match(refused.message, /not declared at launch/);
  emulator.resetRequests();
  for (const port of [0, 70_000, 1.5, Number.NaN])
    await expectCode(runtime.portEndpoint(handle, port), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
  await runtime.destroy(handle);
});
