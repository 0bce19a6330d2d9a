import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { validateNetworkPolicy } from "@sandport/core";
import { EgressProxy, type EgressRefusedEvent, MAX_EGRESS_CONNECTIONS_PER_SANDBOX } from "./egress-proxy.js";

/** An HTTP server on host loopback answering `name` to every request. */
async function serve(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end(name));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** A plain-HTTP request through the proxy's socket in absolute form: its status and body. */
function viaProxy(socketPath: string, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: url, headers: { host: new URL(url).host } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A CONNECT through the proxy, then a GET over the tunnel: the CONNECT answer's status line and the reply. */
function tunnel(socketPath: string, authority: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      text += chunk;
      if (text.startsWith("HTTP/1.1 200") && text.endsWith("\r\n\r\n") && !text.includes("GET")) {
        text += "GET-SENT\n";
        socket.write(`GET / HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`);
      }
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(text));
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  });
}

describe("EgressProxy", () => {
  let directory: string;
  let allowed: { server: Server; port: number };
  let other: { server: Server; port: number };
  const resolve = async (host: string) =>
    host.endsWith(".test") ? ["127.0.0.1"] : Promise.reject(new Error("NXDOMAIN"));

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), "sandport-egress-"));
    allowed = await serve("allowed");
    other = await serve("other");
  });
  after(async () => {
    allowed.server.close();
    other.server.close();
    await rm(directory, { recursive: true, force: true });
  });

  async function proxyFor(allow: string[], name: string) {
    const events: EgressRefusedEvent[] = [];
    const policy = validateNetworkPolicy({ allow }) as { allow: readonly string[] };
    const proxy = new EgressProxy({ sandboxId: "s1", policy, resolve, onRefused: (event) => events.push(event) });
    const path = join(directory, `${name}.sock`);
    await proxy.listen(path);
    return { proxy, path, events };
  }

  test("connections past the bound are closed at once; the held ones stay open", async () => {
    const { proxy, path } = await proxyFor([`allowed.test:${allowed.port}`], "flood");
    const sockets: Socket[] = [];
    try {
      // One at a time, so that none is turned away by a full listen backlog rather than by the proxy.
      const total = MAX_EGRESS_CONNECTIONS_PER_SANDBOX + 20;
      let closed = 0;
      let allClosed = () => {};
      // Resolves once the proxy closed those past the bound: without the bound, it never does.
      const extraClosed = new Promise<void>((resolve) => (allClosed = resolve));
      for (let opened = 0; opened < total; opened++) {
        const socket = connect(path);
        await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
        socket.on("error", () => {});
        socket.on("close", () => {
          closed++;
          if (closed === total - MAX_EGRESS_CONNECTIONS_PER_SANDBOX) allClosed();
        });
        sockets.push(socket);
      }
      await extraClosed;
      assert.equal(sockets.filter((socket) => !socket.destroyed).length, MAX_EGRESS_CONNECTIONS_PER_SANDBOX);
    } finally {
      for (const socket of sockets) socket.destroy();
      await proxy.close();
    }
  });

  test("an allowed name reaches its server (plain HTTP and CONNECT); another name or port is refused and reported", async () => {
    const { proxy, path, events } = await proxyFor([`allowed.test:${allowed.port}`, "127.0.0.1/32"], "allow");
    try {
      assert.deepEqual(await viaProxy(path, `http://allowed.test:${allowed.port}/`), { status: 200, body: "allowed" });
      assert.match(await tunnel(path, `allowed.test:${allowed.port}`), /^HTTP\/1\.1 200[\s\S]*\r\n\r\nallowed$/);
      assert.equal(events.length, 0);
      const port = await viaProxy(path, `http://allowed.test:${other.port}/`);
      assert.equal(port.status, 403);
      const name = await tunnel(path, `elsewhere.test:${allowed.port}`);
      assert.match(name, /^HTTP\/1\.1 403/);
      assert.doesNotMatch(name, /allowed$/);
      assert.deepEqual(
        events.map((event) => [event.sandboxId, event.host, event.port]),
        [
          ["s1", "allowed.test", other.port],
          ["s1", "elsewhere.test", allowed.port],
        ],
      );
    } finally {
      await proxy.close();
    }
  });

  test("a name resolving to host loopback is refused unless a CIDR entry names the address", async () => {
    const { proxy, path, events } = await proxyFor([`allowed.test:${allowed.port}`], "loopback");
    try {
      const answer = await viaProxy(path, `http://allowed.test:${allowed.port}/`);
      assert.equal(answer.status, 403);
      assert.match(answer.body, /loopback/);
      assert.match(await tunnel(path, `127.0.0.1:${allowed.port}`), /^HTTP\/1\.1 403/);
      assert.equal(events.length, 2);
      assert.deepEqual(events[0]?.addresses, ["127.0.0.1"]);
    } finally {
      await proxy.close();
    }
  });

  test('"all" allows public addresses only: host loopback stays refused', async () => {
    const events: EgressRefusedEvent[] = [];
    const proxy = new EgressProxy({
      sandboxId: "s2",
      policy: "all",
      resolve,
      onRefused: (event) => events.push(event),
    });
    const path = join(directory, "all.sock");
    await proxy.listen(path);
    try {
      assert.equal((await viaProxy(path, `http://allowed.test:${allowed.port}/`)).status, 403);
      assert.match(await tunnel(path, `127.0.0.1:${allowed.port}`), /^HTTP\/1\.1 403/);
      assert.match(await tunnel(path, `[::ffff:127.0.0.1]:${allowed.port}`), /^HTTP\/1\.1 403/);
      assert.match(await tunnel(path, "169.254.169.254:80"), /^HTTP\/1\.1 403/);
      assert.equal(events.length, 4);
    } finally {
      await proxy.close();
    }
  });

  test("a plain-HTTP client that leaves before the answer closes the proxy's upstream connection too", {
    timeout: 10_000,
  }, async () => {
    const { proxy, path } = await proxyFor(["127.0.0.1/32"], "leaving");
    // A server that takes the request and never answers: only the proxy can end the connection.
    let upstream: Socket | undefined;
    let arrived = () => {};
    const requested = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const silent = createServer((request) => {
      upstream = request.socket;
      arrived();
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const client = connect(path);
      client.on("error", () => {});
      client.write(`GET http://127.0.0.1:${port}/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      await requested;
      const closed = new Promise<void>((resolve) => upstream?.once("close", () => resolve()));
      client.destroy();
      await closed;
    } finally {
      silent.closeAllConnections();
      silent.close();
      await proxy.close();
    }
  });
});
