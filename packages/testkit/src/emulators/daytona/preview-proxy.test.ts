// Wire tests of preview links with the real Daytona SDKs (0.218 and 0.180):
// getPreviewLink answers a URL and token that reach a server in the sandbox.

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, it } from "node:test";
import { waitFor } from "../../assertions/index.js";
import { deleteAll, gone, openClient } from "./client.fixture.js";
import { type DaytonaEmulator, startDaytonaEmulator } from "./emulator.js";
import { PREVIEW_TOKEN_HEADER } from "./preview-proxy.js";
import { DAYTONA_SDKS, type DaytonaClient, type DaytonaSandbox } from "./sdk.fixture.js";

/** A TCP port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts Python's HTTP server in the sandbox's home directory, serving `port` on 127.0.0.1. */
async function serve(sandbox: DaytonaSandbox, port: number): Promise<void> {
  await sandbox.process.createSession(`http-${port}`);
  await sandbox.process.executeSessionCommand(`http-${port}`, {
    command: `python3 -m http.server ${port} --bind 127.0.0.1`,
    runAsync: true,
  });
}

for (const sdk of DAYTONA_SDKS) {
  describe(`Daytona preview links with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let daytona: DaytonaClient;

    before(async () => {
      emulator = await startDaytonaEmulator();
      daytona = openClient(sdk, emulator);
    });

    after(async () => {
      await deleteAll(emulator);
      await daytona[Symbol.asyncDispose]();
      await emulator.stop();
    });

    it("a private sandbox's link reaches its server with the token, and only with it", async () => {
      const sandbox = await daytona.create();
      const other = await daytona.create();
      await sandbox.fs.uploadFile(Buffer.from("served from the sandbox\n"), "probe.txt");
      const port = await freePort();
      await serve(sandbox, port);
      const link = await sandbox.getPreviewLink(port);
      assert.equal(link.sandboxId, sandbox.id);
      assert.match(link.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(link.token, /^[0-9a-f]{32}$/);
      const withToken = (token: string) =>
        fetch(`${link.url}/probe.txt`, { headers: { [PREVIEW_TOKEN_HEADER]: token } });
      const answer = await waitFor(
        async () => {
          const response = await withToken(link.token);
          if (response.status === 200) return response.text();
          await response.body?.cancel();
          return undefined;
        },
        { timeoutMs: 10_000, what: "the server to answer through the preview link" },
      );
      assert.equal(answer, "served from the sandbox\n");
      assert.deepEqual(await sandbox.getPreviewLink(port), link, "the same link every time");

      assert.equal((await fetch(`${link.url}/probe.txt`)).status, 401, "no token");
      const otherToken = (await other.getPreviewLink(port)).token;
      assert.notEqual(otherToken, link.token, "each sandbox has its own token");
      assert.equal((await withToken(otherToken)).status, 401, "another sandbox's token");

      const silent = await sandbox.getPreviewLink(await freePort());
      const nothing = await fetch(silent.url, { headers: { [PREVIEW_TOKEN_HEADER]: silent.token } });
      assert.equal(nothing.status, 502, "nothing listens on that port");
      await nothing.body?.cancel();

      await sandbox.delete();
      await gone(emulator, sandbox.id);
      await assert.rejects(withToken(link.token), "the link's listener is gone with the sandbox");
      await assert.rejects(daytona.get(sandbox.id), sdk.sdk.DaytonaNotFoundError);
      assert.deepEqual(emulator.unknownRoutes, []);
    });

    it("a public sandbox's link needs no token; a bad port is refused", async () => {
      const sandbox = await daytona.create({ public: true });
      await sandbox.fs.uploadFile(Buffer.from("public\n"), "probe.txt");
      const port = await freePort();
      await serve(sandbox, port);
      const { url } = await sandbox.getPreviewLink(port);
      const answer = await waitFor(
        async () => {
          const response = await fetch(`${url}/probe.txt`).catch(() => undefined);
          if (response?.status === 200) return response.text();
          await response?.body?.cancel();
          return undefined;
        },
        { timeoutMs: 10_000, what: "the public server to answer" },
      );
      assert.equal(answer, "public\n");
      await assert.rejects(
        sandbox.getPreviewLink(70_000),
        (error: unknown) => (error as { statusCode?: number }).statusCode === 400,
      );
    });
  });
}
