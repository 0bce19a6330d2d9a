// Preview URLs through the real @vercel/sandbox SDK: `domain(port)` of a declared port
// reaches a server running in the sandbox, through this process's global fetch and the
// emulator's own, and the routing ends with the emulator.

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, it } from "node:test";
import { Sandbox } from "@vercel/sandbox";
import { waitFor } from "../../assertions/index.js";
import { startVercelEmulator, type VercelEmulator } from "./emulator.js";

/** The dispatcher Node's fetch uses, as it stands. */
const globalDispatcher = () =>
  (globalThis as unknown as Record<symbol, unknown>)[Symbol.for("undici.globalDispatcher.1")];

/** A TCP port that is free right now (sandboxes share the host's ports on the default backend). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The answer of a fetch once it is a 200 (the server in the sandbox may still be starting); else `undefined`. */
async function served(url: string, init?: RequestInit): Promise<Response | undefined> {
  const response = await fetch(url, init).catch(() => undefined);
  if (response?.status === 200) return response;
  await response?.body?.cancel();
  return undefined;
}

/** A node server that answers every request with what it received, as JSON. */
function echoServer(port: number): string {
  return `require("http").createServer((q, s) => { let b = ""; q.on("data", (d) => (b += d)); q.on("end", () => s.end(JSON.stringify({ method: q.method, url: q.url, probe: q.headers["x-probe"], body: b }))); }).listen(${port}, "127.0.0.1")`;
}

describe("Vercel emulator preview URLs with the real @vercel/sandbox SDK", () => {
  let emulator: VercelEmulator;
  let original: unknown;

  before(async () => {
    await (await fetch("data:,")).arrayBuffer();
    original = globalDispatcher();
    emulator = await startVercelEmulator();
  });

  after(() => emulator.stop());

  it("domain(port) reaches the sandbox's server through the global fetch and the emulator's fetch", async () => {
    const port = await freePort();
    const sandbox = await Sandbox.create({ ...emulator.sdkOptions, ports: [port] });
    await sandbox.runCommand({ cmd: "node", args: ["-e", echoServer(port)], detached: true });
    const url = sandbox.domain(port);
    assert.match(url, new RegExp(`^https://sb-[a-z0-9]+-${port}\\.vercel\\.run$`));
    emulator.resetRequests();

    const answered = await waitFor(
      () => served(`${url}/path?q=1`, { method: "POST", body: "payload", headers: { "x-probe": "yes" } }),
      { intervalMs: 50, what: "the server in the sandbox to answer" },
    );
    assert.deepEqual(await answered.json(), { method: "POST", url: "/path?q=1", probe: "yes", body: "payload" });
    const viaEmulator = await emulator.fetch(`${url}/other`);
    assert.equal(((await viaEmulator.json()) as { url: string }).url, "/other");
    assert.equal(emulator.countRequests(), 0, "preview traffic is not API traffic");

    await sandbox.stop();
    const stopped = await fetch(`${url}/path`);
    assert.equal(stopped.status, 502, "a stopped sandbox serves nothing");
    await stopped.body?.cancel();
    await sandbox.delete();
    await assert.rejects(emulator.fetch(`${url}/path`), /refuses/, "a deleted sandbox's host is no longer routed");
  });

  it("the global fetch is routed while some emulator runs, and restored after the last one stops", async () => {
    const other = await startVercelEmulator();
    const port = await freePort();
    const sandbox = await Sandbox.create({ ...other.sdkOptions, ports: [port] });
    await sandbox.runCommand({ cmd: "node", args: ["-e", echoServer(port)], detached: true });
    const answered = await waitFor(() => served(`${sandbox.domain(port)}/x`), {
      intervalMs: 50,
      what: "the other emulator's sandbox to answer",
    });
    assert.equal(((await answered.json()) as { url: string }).url, "/x");
    await other.stop();
    assert.notEqual(globalDispatcher(), original, "the first emulator still routes its hosts");
    await emulator.stop();
    assert.equal(globalDispatcher(), original, "the global dispatcher is Node's own again");
    emulator = await startVercelEmulator();
  });
});
