// The harness's WebSocket upgrades, driven by a raw HTTP client so the frames on the wire are checked byte by byte.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import type { Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { EmulatorServer } from "./http-server.js";
import { webSocketAccept } from "./websocket.js";

/** An upgrade request: the `101` socket with the bytes after the headers, or the plain HTTP answer. */
function upgrade(
  server: EmulatorServer,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ socket: Socket; head: Buffer; accept: string | undefined } | { status: number; body: string }> {
  const key = randomBytes(16).toString("base64");
  return new Promise((resolve, reject) => {
    const outgoing = request(`${server.url}${path}`, {
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-key": key,
        "sec-websocket-version": "13",
        ...headers,
      },
    });
    outgoing.on("upgrade", (response, socket, head) => {
      const accept = response.headers["sec-websocket-accept"];
      assert.equal(accept, webSocketAccept(key));
      resolve({ socket, head, accept });
    });
    outgoing.on("response", async (response) => {
      let body = "";
      for await (const chunk of response) body += chunk;
      resolve({ status: response.statusCode ?? 0, body });
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** Every byte the server sends until it closes the connection. */
async function readAll(socket: Socket, head: Buffer): Promise<Buffer> {
  const chunks = [head];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A masked client close frame (code 1000), as RFC 6455 requires clients to send. */
function clientClose(): Buffer {
  const mask = randomBytes(4);
  const payload = Buffer.from([0x03, 0xe8]);
  for (let index = 0; index < payload.length; index++) payload[index] = payload[index]! ^ mask[index % 4]!;
  return Buffer.concat([Buffer.from([0x88, 0x80 | payload.length]), mask, payload]);
}

describe("EmulatorServer WebSocket upgrades", () => {
  let server: EmulatorServer;

  before(async () => {
    server = await EmulatorServer.start();
    server.route({
      method: "GET",
      pattern: "/feed",
      handler: async (exchange) => {
        if (!exchange.wantsWebSocket) {
          exchange.json(200, { plain: true });
          return;
        }
        const socket = exchange.acceptWebSocket();
        if (!socket) return;
        socket.send("hello");
        socket.send(Buffer.alloc(300, 7));
        socket.close();
        await new Promise((resolve) => socket.signal.addEventListener("abort", resolve, { once: true }));
      },
    });
  });

  after(() => server.stop());

  it("accepts on a route, sends text and binary frames, and closes with a handshake", async () => {
    server.log.reset();
    const opened = await upgrade(server, "/feed");
    assert.ok("socket" in opened);
    const received = readAll(opened.socket, opened.head);
    opened.socket.write(clientClose());
    const bytes = await received;
    const text = Buffer.concat([Buffer.from([0x81, 5]), Buffer.from("hello")]);
    const binary = Buffer.concat([Buffer.from([0x82, 126, 0x01, 0x2c]), Buffer.alloc(300, 7)]);
    const close = Buffer.from([0x88, 2, 0x03, 0xe8]);
    assert.deepEqual(bytes, Buffer.concat([text, binary, close]));
    assert.deepEqual(
      server.log.records.map((record) => `${record.route} ${record.status}`),
      ["GET /feed 101"],
    );
  });

  it("answers an upgrade to an unknown route, a refused handshake and a fault as plain HTTP", async () => {
    server.log.reset();
    const unknown = await upgrade(server, "/nowhere");
    assert.deepEqual(unknown, {
      status: 404,
      body: JSON.stringify({ code: 404, message: "no route for GET /nowhere" }),
    });
    assert.deepEqual(server.log.unknownRoutes, ["GET /nowhere"]);
    const badVersion = await upgrade(server, "/feed", { "sec-websocket-version": "8" });
    assert.equal("status" in badVersion && badVersion.status, 400);
    server.faults.add({ route: "GET /feed", fault: { kind: "status", status: 503 } });
    const faulted = await upgrade(server, "/feed");
    assert.equal("status" in faulted && faulted.status, 503);
    const plain = await fetch(`${server.url}/feed`);
    assert.deepEqual(await plain.json(), { plain: true });
  });

  it("a drop-mid-stream fault cuts the connection after the given number of messages", async () => {
    server.faults.add({ route: "GET /feed", fault: { kind: "drop-mid-stream", afterEvents: 1 } });
    const opened = await upgrade(server, "/feed");
    assert.ok("socket" in opened);
    const bytes = await readAll(opened.socket, opened.head).catch(() => Buffer.alloc(0));
    assert.deepEqual(bytes, Buffer.concat([Buffer.from([0x81, 5]), Buffer.from("hello")]));
  });
});
