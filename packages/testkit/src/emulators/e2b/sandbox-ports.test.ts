// HTTP to a sandbox's ports: a real server started through the real e2b SDK,
// reached through the emulator as E2B's edge routes it (headers on the
// sandbox URL, or the `<port>-<id>.<domain>` host), private sandboxes included.

import assert from "node:assert/strict";
import { request } from "node:http";
import { createServer } from "node:net";
import { describe, it } from "node:test";
import * as e2b from "e2b";
import { useEmulator } from "./sdk-tests.fixture.js";

const { Sandbox } = e2b;

/** Answers every request with what it received, as JSON. */
const ECHO_SERVER = `
const http = require("node:http");
http.createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    response.setHeader("x-echo", "yes");
    response.end(JSON.stringify({ method: request.method, url: request.url, headers: request.headers, body }));
  });
}).listen(Number(process.argv[2]), "127.0.0.1", () => console.log("listening"));
`;

interface Echo {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A TCP port free on this machine right now (the emulator's sandboxes share its network). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

describe("E2B emulator: HTTP to sandbox ports", () => {
  const fixture = useEmulator();

  /** A sandbox running the echo server on a free port, once it listens. */
  async function serving(options: e2b.SandboxOpts = {}) {
    const sandbox = await fixture.create(options);
    const port = await freePort();
    await sandbox.files.write("echo.js", ECHO_SERVER);
    let ready!: () => void;
    const listening = new Promise<void>((resolve) => {
      ready = resolve;
    });
    await sandbox.commands.run(`node echo.js ${port}`, {
      background: true,
      timeoutMs: 60_000,
      onStdout: (line) => (line.includes("listening") ? ready() : undefined),
    });
    await listening;
    const routing = { "E2b-Sandbox-Id": sandbox.sandboxId, "E2b-Sandbox-Port": String(port) };
    return { sandbox, port, routing };
  }

  it("routes by E2b-Sandbox-Id / E2b-Sandbox-Port: method, path, query, headers and body reach the server", async () => {
    const { emulator } = fixture;
    const { routing } = await serving();
    emulator.resetRequests();
    const response = await fetch(`${emulator.sandboxUrl}/files?path=x&y=1`, {
      method: "POST",
      headers: { ...routing, "x-custom": "kept", "content-type": "text/plain" },
      body: "hello ✓",
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-echo"), "yes", "the server's headers come back");
    const echo = (await response.json()) as Echo;
    assert.deepEqual([echo.method, echo.url, echo.body], ["POST", "/files?path=x&y=1", "hello ✓"]);
    assert.equal(echo.headers["x-custom"], "kept");
    assert.equal(echo.headers["e2b-sandbox-id"], undefined, "the routing headers stay at the edge");
    assert.equal(echo.headers["e2b-sandbox-port"], undefined);
    assert.deepEqual(emulator.unknownRoutes, [], "port traffic is not an unknown route");
    const get = await fetch(`${emulator.sandboxUrl}/somewhere/else`, { headers: routing });
    assert.equal(((await get.json()) as Echo).url, "/somewhere/else");
    assert.deepEqual(emulator.unknownRoutes, []);
  });

  it("routes by the <port>-<sandboxId>.<domain> host as well", async () => {
    const { emulator } = fixture;
    const { sandbox, port } = await serving();
    const host = `${sandbox.getHost(port)}`;
    assert.equal(host, `${port}-${sandbox.sandboxId}.${emulator.domain}`, "the SDK's own host for the port");
    const url = new URL(emulator.sandboxUrl);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const sent = request({ host: url.hostname, port: url.port, path: "/by-host", headers: { host } }, (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      sent.on("error", reject);
      sent.end();
    });
    assert.equal(answer.status, 200);
    assert.equal((JSON.parse(answer.body) as Echo).url, "/by-host");
  });

  it("a private sandbox's ports need its traffic access token; public ones do not", async () => {
    const { emulator } = fixture;
    const { sandbox, routing } = await serving({ network: { allowPublicTraffic: false } });
    const token = sandbox.trafficAccessToken;
    assert.match(token ?? "", /^[0-9a-f]{32}$/, "create answers with the token");
    const connected = await Sandbox.connect(sandbox.sandboxId, emulator.sdkOptions);
    assert.equal(connected.trafficAccessToken, token, "so does connect");
    const missing = await fetch(`${emulator.sandboxUrl}/`, { headers: routing });
    assert.equal(missing.status, 403);
    assert.match(((await missing.json()) as { message: string }).message, /e2b-traffic-access-token' is missing/);
    const wrong = await fetch(`${emulator.sandboxUrl}/`, {
      headers: { ...routing, "e2b-traffic-access-token": "0".repeat(32) },
    });
    assert.equal(wrong.status, 403);
    await wrong.body?.cancel();
    const allowed = await fetch(`${emulator.sandboxUrl}/in`, {
      headers: { ...routing, "e2b-traffic-access-token": token ?? "" },
    });
    assert.equal(allowed.status, 200);
    const echo = (await allowed.json()) as Echo;
    assert.equal(echo.headers["e2b-traffic-access-token"], undefined, "the token stays at the edge");

    const open = await serving();
    assert.equal(open.sandbox.trafficAccessToken, undefined, "a public sandbox has no token");
    assert.equal((await fetch(`${emulator.sandboxUrl}/`, { headers: open.routing })).status, 200);
  });

  it("a port nothing listens on, and a sandbox that is not running, answer 502 as E2B's edge does", async () => {
    const { emulator } = fixture;
    const sandbox = await fixture.create();
    const port = await freePort();
    const closed = await fetch(`${emulator.sandboxUrl}/`, {
      headers: { "E2b-Sandbox-Id": sandbox.sandboxId, "E2b-Sandbox-Port": String(port) },
    });
    assert.equal(closed.status, 502);
    assert.deepEqual(await closed.json(), {
      sandboxId: sandbox.sandboxId,
      message: "The sandbox is running but port is not open",
      port,
      code: 502,
    });
    await sandbox.pause();
    const paused = await fetch(`${emulator.sandboxUrl}/`, {
      headers: { "E2b-Sandbox-Id": sandbox.sandboxId, "E2b-Sandbox-Port": String(port) },
    });
    assert.equal(paused.status, 502);
    await paused.body?.cancel();
    const invalid = await fetch(`${emulator.sandboxUrl}/`, {
      headers: { "E2b-Sandbox-Id": sandbox.sandboxId, "E2b-Sandbox-Port": "99999" },
    });
    assert.equal(invalid.status, 400);
    await invalid.body?.cancel();
  });
});
