// SOCKS5 on the egress proxy's socket: CONNECT without authentication, under the same rules as HTTP.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { validateNetworkPolicy } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";
import { EgressProxy, type EgressRefusedEvent } from "./egress-proxy.js";

const skipNamespaces =
  (await bwrapSkipReason()) ?? (existsSync("/usr/bin/curl") ? undefined : "curl is not installed here");

async function serve(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end(name));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** A SOCKS5 target: a name (`ATYP 3`) or an IPv4 address (`ATYP 1`). */
function target(host: string, port: number): Buffer {
  const portBytes = Buffer.alloc(2);
  portBytes.writeUInt16BE(port);
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host))
    return Buffer.concat([Buffer.from([1, ...host.split(".").map(Number)]), portBytes]);
  return Buffer.concat([Buffer.from([3, host.length]), Buffer.from(host, "latin1"), portBytes]);
}

/**
 * Speaks SOCKS5 over the proxy's socket, one byte at a time for the handshake (so that the parser must
 * wait for whole messages): the greeting's answer, the request's reply code, and, when it succeeded, the
 * answer to a GET sent through the tunnel.
 */
function socks(
  socketPath: string,
  methods: readonly number[],
  command: number,
  host: string,
  port: number,
): Promise<{ method: number; reply?: number; body?: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let received = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const method = received[1] as number;
      // The greeting's answer is 2 bytes, the request's reply 10 (an IPv4 bound address), then the tunnel's bytes.
      if (received.length < 12) return resolve({ method });
      const reply = received[3] as number;
      if (reply !== 0) return resolve({ method, reply });
      const body = received.subarray(12).toString("utf8");
      resolve({ method, reply, body: body.slice(body.indexOf("\r\n\r\n") + 4) });
    });
    const bytes = [
      ...Buffer.from([5, methods.length, ...methods]),
      ...Buffer.concat([Buffer.from([5, command, 0]), target(host, port)]),
    ];
    const sendByByte = (index: number) => {
      if (index === bytes.length) {
        socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
        return;
      }
      socket.write(Buffer.from([bytes[index] as number]), () => sendByByte(index + 1));
    };
    sendByByte(0);
  });
}

describe("EgressProxy: SOCKS5", () => {
  let directory: string;
  let allowed: { server: Server; port: number };
  const events: EgressRefusedEvent[] = [];
  let proxy: EgressProxy;
  let socketPath: string;

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), "sandport-socks-"));
    allowed = await serve("allowed");
    proxy = new EgressProxy({
      sandboxId: "sbx-socks",
      policy: validateNetworkPolicy({ allow: ["allowed.test", "127.0.0.1/32"] }) as { allow: string[] },
      resolve: async (host) => (host.endsWith(".test") ? ["127.0.0.1"] : []),
      onRefused: (event) => events.push(event),
    });
    socketPath = join(directory, "proxy.sock");
    await proxy.listen(socketPath);
  });
  after(async () => {
    await proxy.close();
    allowed.server.close();
    await rm(directory, { recursive: true, force: true });
  });

  test("CONNECT to an allowed name or address tunnels; the rules refuse the rest with 0x02, observed", async () => {
    events.length = 0;
    assert.deepEqual(await socks(socketPath, [0], 1, "allowed.test", allowed.port), {
      method: 0,
      reply: 0,
      body: "allowed",
    });
    assert.deepEqual(await socks(socketPath, [0], 1, "127.0.0.1", allowed.port), {
      method: 0,
      reply: 0,
      body: "allowed",
    });
    assert.deepEqual(await socks(socketPath, [0], 1, "elsewhere.test", allowed.port), { method: 0, reply: 2 });
    assert.deepEqual(await socks(socketPath, [0], 1, "127.0.0.2", allowed.port), { method: 0, reply: 2 });
    assert.deepEqual(
      events.map((event) => [event.sandboxId, event.host, event.port]),
      [
        ["sbx-socks", "elsewhere.test", allowed.port],
        ["sbx-socks", "127.0.0.2", allowed.port],
      ],
    );
  });

  test("only no-authentication and CONNECT are offered", async () => {
    events.length = 0;
    assert.deepEqual(await socks(socketPath, [2], 1, "allowed.test", allowed.port), { method: 0xff });
    assert.deepEqual(await socks(socketPath, [0], 2, "allowed.test", allowed.port), { method: 0, reply: 7 });
    assert.deepEqual(events, [], "nothing was decided");
  });
});

const root = temporaryDirectory("socks");
after(() => root.remove());

describe("namespaces: SOCKS5 from inside a sandbox", { skip: skipNamespaces }, () => {
  test("curl --socks5-hostname through the relay reaches an allowed name, not another", async () => {
    const served = await serve("allowed");
    const runtime = new LocalRuntime({
      root: root.path,
      killGraceMs: 100,
      egressResolver: async (host) => (host.endsWith(".test") ? ["127.0.0.1"] : []),
    });
    const handle = await runtime.launch({ network: { allow: [`allowed.test:${served.port}`, "127.0.0.1/32"] } });
    try {
      const curl = (name: string) =>
        runtime.exec(handle, {
          argv: ["curl", "-sS", "--socks5-hostname", "127.0.0.1:3128", `http://${name}:${served.port}/`],
        });
      const yes = await curl("allowed.test");
      assert.equal(yes.stdout, "allowed", yes.stderr);
      const no = await curl("elsewhere.test");
      assert.notEqual(no.exitCode, 0);
      assert.equal(no.stdout, "");
    } finally {
      await runtime.destroy(handle);
      served.server.close();
    }
  });
});
