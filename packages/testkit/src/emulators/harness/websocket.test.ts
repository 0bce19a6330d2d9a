// The harness's WebSocket upgrades, driven by a raw HTTP client so the frames on the wire are checked byte by byte.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import type { Socket } from "node:net";
import { after, before, beforeEach, describe, it } from "node:test";
import type { Disruption } from "./exchange.js";
import { EmulatorServer } from "./http-server.js";
import { webSocketAccept } from "./websocket.js";

type Upgraded = { socket: Socket; head: Buffer; accept: string | undefined };
type Refused = { status: number; body: string };

/** An upgrade request: the `101` socket with the bytes after the headers, or the plain HTTP answer. */
function upgrade(
  server: EmulatorServer,
  path: string,
  headers: Record<string, string> = {},
): Promise<Upgraded | Refused> {
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

/** An upgrade that must succeed. */
async function open(server: EmulatorServer, path: string): Promise<Upgraded> {
  const opened = await upgrade(server, path);
  assert.ok("socket" in opened, `expected a 101, got ${JSON.stringify(opened)}`);
  return opened;
}

/** Every byte the server sends until it closes the connection. */
async function readAll(socket: Socket, head: Buffer): Promise<Buffer> {
  const chunks = [head];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Resolves with the first `count` bytes the server sends (after `head`). */
function readBytes(socket: Socket, head: Buffer, count: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let received = head;
    const check = () => {
      if (received.length < count) return;
      socket.off("data", onData);
      resolve(received.subarray(0, count));
    };
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      check();
    };
    socket.on("data", onData);
    socket.once("close", () => reject(new Error(`closed after ${received.length} of ${count} bytes`)));
    check();
  });
}

/** A masked client frame, as RFC 6455 requires clients to send. */
function clientFrame(opcode: number, payload: Buffer | string, final = true): Buffer {
  const bytes = Buffer.from(payload);
  const mask = randomBytes(4);
  const masked = Buffer.from(bytes);
  for (let index = 0; index < masked.length; index++) masked[index] = masked[index]! ^ mask[index % 4]!;
  const first = (final ? 0x80 : 0) | opcode;
  let header: Buffer;
  if (bytes.length < 126) {
    header = Buffer.from([first, 0x80 | bytes.length]);
  } else if (bytes.length <= 0xffff) {
    header = Buffer.from([first, 0x80 | 126, 0, 0]);
    header.writeUInt16BE(bytes.length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(bytes.length), 2);
  }
  return Buffer.concat([header, mask, masked]);
}

/** A client close frame with code 1000. */
function clientClose(): Buffer {
  return clientFrame(0x8, Buffer.from([0x03, 0xe8]));
}

/** An unmasked server frame of a short payload. */
function serverFrame(opcode: number, payload: Buffer | string): Buffer {
  const bytes = Buffer.from(payload);
  return Buffer.concat([Buffer.from([0x80 | opcode, bytes.length]), bytes]);
}

describe("EmulatorServer WebSocket upgrades", () => {
  let server: EmulatorServer;
  /** What the `/route-faults` handler saw, and the messages `/echo` received. */
  let seenDisruption: Disruption | undefined;
  let echoed: { data: string; binary: boolean }[];

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
    // Echoes each message back with the path parameter in front; refuses a client without credentials.
    server.route({
      method: "GET",
      pattern: "/echo/:name",
      handler: (exchange) => {
        if (exchange.header("authorization") !== "yes") {
          exchange.json(401, { code: 401, message: "no" });
          return;
        }
        const socket = exchange.acceptWebSocket({ maxMessageBytes: 1024 });
        if (!socket) return;
        socket.onMessage = (data, binary) => {
          echoed.push({ data: data.toString(), binary });
          socket.send(
            binary ? Buffer.concat([Buffer.from(`${exchange.params.name}:`), data]) : `${exchange.params.name}:${data}`,
          );
        };
      },
    });
    // A route that applies faults itself: it reports the disruption and sends two messages.
    server.route({
      method: "GET",
      pattern: "/route-faults",
      handler: (exchange) => {
        seenDisruption = exchange.disruption;
        const socket = exchange.acceptWebSocket({ disruptionBy: "route" });
        if (!socket) return;
        socket.send("one");
        socket.send("two");
      },
    });
  });

  after(() => server.stop());

  beforeEach(() => {
    server.log.reset();
    server.faults.clear();
    seenDisruption = undefined;
    echoed = [];
  });

  it("accepts on a route, sends text and binary frames, and closes with a handshake", async () => {
    const opened = await open(server, "/feed");
    const received = readAll(opened.socket, opened.head);
    opened.socket.write(clientClose());
    const bytes = await received;
    const text = serverFrame(0x1, "hello");
    const binary = Buffer.concat([Buffer.from([0x82, 126, 0x01, 0x2c]), Buffer.alloc(300, 7)]);
    const close = Buffer.from([0x88, 2, 0x03, 0xe8]);
    assert.deepEqual(bytes, Buffer.concat([text, binary, close]));
    assert.deepEqual(
      server.log.records.map((record) => `${record.route} ${record.status}`),
      ["GET /feed 101"],
    );
  });

  it("answers an upgrade to an unknown route, a refused handshake and a fault as plain HTTP", async () => {
    const unknown = await upgrade(server, "/nowhere");
    assert.deepEqual(unknown, {
      status: 404,
      body: JSON.stringify({ code: 404, message: "no route for GET /nowhere" }),
    });
    assert.deepEqual(server.log.unknownRoutes, ["GET /nowhere"]);
    const badVersion = await upgrade(server, "/feed", { "sec-websocket-version": "8" });
    assert.equal("status" in badVersion && badVersion.status, 400);
    const refused = await upgrade(server, "/echo/x", { authorization: "no" });
    assert.deepEqual(refused, { status: 401, body: JSON.stringify({ code: 401, message: "no" }) });
    server.faults.add({ route: "GET /feed", fault: { kind: "status", status: 503, retryAfterSeconds: 1 } });
    const faulted = await upgrade(server, "/feed");
    assert.deepEqual(faulted, {
      status: 503,
      body: JSON.stringify({ code: 503, message: "injected fault: HTTP 503" }),
    });
    const plain = await fetch(`${server.url}/feed`);
    assert.deepEqual(await plain.json(), { plain: true });
    assert.deepEqual(
      server.log.records.map((record) => `${record.route} ${record.status}`),
      ["GET /nowhere 404", "GET /feed 400", "GET /echo/:name 401", "GET /feed 503", "GET /feed 200"],
    );
  });

  it("hands the route its decoded parameters and the client's messages: masked, fragmented, with pings between", async () => {
    const opened = await upgrade(server, "/echo/a%20b", { authorization: "yes" });
    assert.ok("socket" in opened);
    const { socket, head } = opened;
    const reply = serverFrame(0x1, "a b:hi");
    const pong = serverFrame(0xa, "p");
    const fragmentedReply = serverFrame(0x2, "a b:xyz");
    const replies = readBytes(socket, head, reply.length + pong.length + fragmentedReply.length);
    socket.write(clientFrame(0x1, "hi"));
    // One binary message in three fragments, with a ping between two of them.
    socket.write(
      Buffer.concat([
        clientFrame(0x2, "x", false),
        clientFrame(0x9, "p"),
        clientFrame(0x0, "y", false),
        clientFrame(0x0, "z"),
      ]),
    );
    assert.deepEqual(await replies, Buffer.concat([reply, pong, fragmentedReply]));
    assert.deepEqual(echoed, [
      { data: "hi", binary: false },
      { data: "xyz", binary: true },
    ]);
    const closed = readAll(socket, Buffer.alloc(0));
    socket.write(clientClose());
    assert.deepEqual(await closed, Buffer.from([0x88, 2, 0x03, 0xe8]));
  });

  it("fails a connection whose message passes maxMessageBytes with 1009, also across fragments", async () => {
    for (const frames of [
      [clientFrame(0x2, Buffer.alloc(2000))],
      [clientFrame(0x2, Buffer.alloc(600), false), clientFrame(0x0, Buffer.alloc(600))],
    ]) {
      const opened = await upgrade(server, "/echo/big", { authorization: "yes" });
      assert.ok("socket" in opened);
      const closed = readAll(opened.socket, opened.head);
      opened.socket.write(Buffer.concat(frames));
      assert.deepEqual(await closed, Buffer.from([0x88, 2, 0x03, 0xf1]));
    }
    assert.deepEqual(echoed, []);
  });

  it("faults: drop before the route runs, latency delays the handshake", async () => {
    server.faults.add({ route: "GET /echo/:name", fault: { kind: "drop" } });
    await assert.rejects(upgrade(server, "/echo/a", { authorization: "yes" }));
    server.faults.add({ route: "GET /echo/:name", fault: { kind: "latency", ms: 150 } });
    const started = Date.now();
    const slow = await upgrade(server, "/echo/a", { authorization: "yes" });
    assert.ok(Date.now() - started >= 140);
    assert.ok("socket" in slow);
    slow.socket.destroy();
    assert.deepEqual(
      server.log.records.map((record) => record.status),
      [0, 101],
    );
  });

  it("a drop-mid-stream fault cuts the connection after the given number of messages", async () => {
    server.faults.add({ route: "GET /feed", fault: { kind: "drop-mid-stream", afterEvents: 1 } });
    const opened = await open(server, "/feed");
    const bytes = await readAll(opened.socket, opened.head).catch(() => Buffer.alloc(0));
    assert.deepEqual(bytes, serverFrame(0x1, "hello"));
  });

  it("a lost-response fault destroys the connection instead of the 101", async () => {
    server.faults.add({ route: "GET /feed", fault: { kind: "lost-response" } });
    await assert.rejects(upgrade(server, "/feed"));
    assert.deepEqual(
      server.log.records.map((record) => `${record.route} ${record.status}`),
      ["GET /feed 0"],
    );
  });

  it("a route that applies faults itself gets the handshake untouched and the disruption to apply", async () => {
    server.faults.add({ route: "GET /route-faults", fault: { kind: "lost-response" } });
    const lost = await open(server, "/route-faults");
    assert.deepEqual(seenDisruption, { kind: "lost-response" });
    assert.deepEqual(
      await readBytes(lost.socket, lost.head, 10),
      Buffer.concat([serverFrame(0x1, "one"), serverFrame(0x1, "two")]),
    );
    lost.socket.destroy();
    server.faults.add({ route: "GET /route-faults", fault: { kind: "drop-mid-stream", afterEvents: 1 } });
    const cut = await open(server, "/route-faults");
    assert.deepEqual(seenDisruption, { kind: "cut", afterEvents: 1 });
    assert.deepEqual((await readBytes(cut.socket, cut.head, 10)).length, 10);
    cut.socket.destroy();
  });

  it("stop() ends open WebSockets", async () => {
    const own = await EmulatorServer.start();
    own.route({
      method: "GET",
      pattern: "/hold",
      handler: (exchange) => {
        exchange.acceptWebSocket();
      },
    });
    const opened = await open(own, "/hold");
    const closed = readAll(opened.socket, opened.head).catch(() => Buffer.alloc(0));
    await own.stop();
    assert.deepEqual(await closed, Buffer.alloc(0));
  });
});
