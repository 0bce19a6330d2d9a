// portEndpoint through the real SDK's getPreviewLink against the Daytona
// emulator: the preview URL of any port, with the sandbox's token in a header.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "ports-tests" });

/** A TCP port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("a server in the sandbox is reached through its preview link with the token header; no port is declared", async () => {
  const handle = await runtime.launch();
  await runtime.writeFiles(handle, [{ path: "site/index.txt", content: "from the sandbox\n" }]);
  const port = await freePort();
  await runtime.startCommand(handle, {
    sessionId: "http",
    argv: ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1"],
    cwd: "site",
  });
  emulator.resetRequests();
  const endpoint = await runtime.portEndpoint(handle, port);
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    ["GET /api/sandbox/:id/ports/:port/preview-url"],
  );
  assert.match(endpoint.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.deepEqual(Object.keys(endpoint.headers ?? {}), ["x-daytona-preview-token"]);
  const body = await waitFor(
    async () => {
      const response = await fetch(`${endpoint.url}/index.txt`, { headers: { ...endpoint.headers } }).catch(
        () => undefined,
      );
      if (response?.status === 200) return response.text();
      await response?.body?.cancel();
      return undefined;
    },
    { timeoutMs: 10_000, what: "the server to answer" },
  );
  assert.equal(body, "from the sandbox\n");
  assert.equal((await fetch(`${endpoint.url}/index.txt`)).status, 401, "the token is required");
  await runtime.destroy(handle);
});

test("a port outside 1-65535 is refused before any request; an absent sandbox is NOT_FOUND", async () => {
  const handle = await runtime.launch();
  emulator.resetRequests();
  for (const port of [0, 65_536, 1.5, Number.NaN])
    await expectCode(runtime.portEndpoint(handle, port), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
  await runtime.destroy(handle);
  await expectCode(runtime.portEndpoint(handle, 3000), "NOT_FOUND");
});
