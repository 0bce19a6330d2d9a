// Exposed ports carry a credential: a request without the endpoint's headers never reaches the
// sandbox's server, and a request with them reaches it without them.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, describe, test } from "node:test";
import type { PortEndpoint } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";

const skipNamespaces = await bwrapSkipReason();
const root = temporaryDirectory("port-credential");
after(() => root.remove());

/** A server that logs each request's path to `requests.log` and answers with the headers it saw, as JSON. */
const echoServer = (port: number) => `
import http.server, json
class Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        with open("requests.log", "a") as log:
            log.write(self.path + "\\n")
        body = json.dumps({k.lower(): v for k, v in self.headers.items()}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", ${port}), Echo).serve_forever()
`;

/** A server that answers any request head with `101` and then echoes what it gets; it logs each head to `heads.log`. */
const upgradeServer = (port: number) => `
import socket, threading
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", ${port}))
listener.listen()
def serve(connection):
    head = b""
    while b"\\r\\n\\r\\n" not in head:
        data = connection.recv(4096)
        if not data:
            return connection.close()
        head += data
    head, rest = head.split(b"\\r\\n\\r\\n", 1)
    with open("heads.log", "ab") as log:
        log.write(head + b"\\n--\\n")
    connection.sendall(b"HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: echo\\r\\nConnection: Upgrade\\r\\n\\r\\n" + rest)
    while True:
        data = connection.recv(4096)
        if not data:
            break
        connection.sendall(data)
    connection.close()
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
`;

/** Reads from `socket` until what arrived (since the call) contains `expected`; all of it. */
function until(socket: Socket, expected: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (text.includes(expected)) {
        socket.off("data", onData);
        resolve(text);
      }
    };
    socket.on("data", onData);
    socket.once("close", () => reject(new Error(`closed before ${JSON.stringify(expected)}: ${text}`)));
  });
}

/** The headers the server saw, once it answers (it may still be starting). */
async function served(endpoint: PortEndpoint, path: string): Promise<Record<string, string>> {
  for (;;) {
    try {
      const response = await fetch(`${endpoint.url}${path}`, { headers: { ...endpoint.headers } });
      if (response.status === 200) return (await response.json()) as Record<string, string>;
      await response.body?.cancel();
    } catch {
      // The server is still starting.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Sends `head` as is on a raw connection and returns everything the forwarder answered before closing. */
function raw(endpoint: PortEndpoint, head: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(endpoint.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.write(head);
  });
}

describe("port endpoint credential", { skip: skipNamespaces, timeout: 120_000 }, () => {
  const runtime = new LocalRuntime({ root: root.path, killGraceMs: 100 });

  test("the endpoint carries a random credential in headers, not in its URL", async () => {
    const first = await runtime.launch({ ports: [8101] });
    const second = await runtime.launch({ ports: [8101] });
    try {
      const one = await runtime.portEndpoint(first, 8101);
      const two = await runtime.portEndpoint(second, 8101);
      const values = [one, two].map((endpoint) => Object.values(endpoint.headers ?? {}));
      assert.equal(values[0]?.length, 1);
      assert.match(values[0]?.[0] ?? "", /^[A-Za-z0-9_-]{43}$/, "32 random bytes, base64url");
      assert.notEqual(values[0]?.[0], values[1]?.[0], "each sandbox's endpoint has its own credential");
      for (const endpoint of [one, two]) {
        assert.ok(!endpoint.url.includes(Object.values(endpoint.headers ?? {})[0] ?? "-"), "not in the URL");
      }
    } finally {
      await runtime.destroy(first);
      await runtime.destroy(second);
    }
  });

  test("without the header: 401, never reaches the server; with it: served, the server never sees it", async () => {
    const handle = await runtime.launch({ ports: [8102] });
    await runtime.writeFiles(handle, [{ path: "server.py", content: echoServer(8102) }]);
    const server = await runtime.spawn(handle, { argv: ["python3", "server.py"] });
    try {
      const endpoint = await runtime.portEndpoint(handle, 8102);
      const [name, value] = Object.entries(endpoint.headers ?? {})[0] ?? ["", ""];
      const seen = await served(endpoint, "/ready");
      assert.equal(seen[name.toLowerCase()], undefined, "the server saw the credential");
      // Several requests in a row (a client's keep-alive pool): each one is checked and stripped.
      for (let index = 0; index < 3; index++) {
        const again = await served(endpoint, `/again-${index}`);
        assert.equal(again[name.toLowerCase()], undefined, "a later request on the connection carried it through");
      }

      // The answer says the connection closes, as the forwarder asked the server: a client's pool opens a new
      // connection for its next request, rather than sending it on this one as the server closes it.
      for (let index = 0; index < 20; index++) {
        const answer = await fetch(`${endpoint.url}/closing-${index}`, { headers: { ...endpoint.headers } });
        assert.equal(answer.headers.get("connection"), "close");
        await answer.arrayBuffer();
      }

      const bare = await fetch(`${endpoint.url}/without`);
      assert.equal(bare.status, 401);
      await bare.body?.cancel();
      const wrong = await fetch(`${endpoint.url}/wrong`, { headers: { [name]: `${value.slice(1)}x` } });
      assert.equal(wrong.status, 401);
      await wrong.body?.cancel();
      // A head that arrives in pieces, the credential in the last one: served.
      const pieces = await new Promise<string>((resolve, reject) => {
        const { hostname, port } = new URL(endpoint.url);
        const socket = connect(Number(port), hostname);
        const chunks: Buffer[] = [];
        socket.on("data", (chunk) => chunks.push(chunk));
        socket.on("error", reject);
        socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
        socket.write("GET /pieces HTTP/1.1\r\nHost: x\r\n", () =>
          socket.write(`${name}: ${value}\r`, () => socket.write("\n\r\n")),
        );
      });
      assert.match(pieces, /^HTTP\/1\.1 200/);
      // Oversized, the credential past 64 KiB: refused without reaching the server.
      const padding = `X-Padding: ${"a".repeat(70 * 1024)}\r\n`;
      const oversized = await raw(
        endpoint,
        `GET /oversized HTTP/1.1\r\nHost: x\r\n${padding}${name}: ${value}\r\n\r\n`,
      );
      assert.match(oversized, /^HTTP\/1\.1 431/);
      // Not HTTP at all.
      assert.match(await raw(endpoint, "\u0016\u0003\u0001 not http\r\n\r\n"), /^HTTP\/1\.1 (400|401)/);

      const log = new TextDecoder().decode(await runtime.readFile(handle, "requests.log"));
      assert.ok(log.includes("/pieces"), log);
      for (const refused of ["/without", "/wrong", "/oversized"]) {
        assert.ok(!log.includes(refused), `${refused} reached the server: ${log}`);
      }
    } finally {
      await server.kill();
      await runtime.destroy(handle);
    }
  });

  test("an upgrade keeps its connection: later bytes flow both ways; the server never sees the credential", async () => {
    const handle = await runtime.launch({ ports: [8104] });
    await runtime.writeFiles(handle, [{ path: "server.py", content: upgradeServer(8104) }]);
    const server = await runtime.spawn(handle, { argv: ["python3", "server.py"] });
    try {
      const endpoint = await runtime.portEndpoint(handle, 8104);
      const [name, value] = Object.entries(endpoint.headers ?? {})[0] ?? ["", ""];
      const { hostname, port } = new URL(endpoint.url);
      const head = `GET /socket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n${name}: ${value}\r\n\r\n`;
      let socket: Socket | undefined;
      while (!socket) {
        const attempt = connect(Number(port), hostname);
        attempt.on("error", () => {});
        const answered = until(attempt, "\r\n\r\n").catch(() => "");
        attempt.write(head);
        if ((await answered).startsWith("HTTP/1.1 101")) socket = attempt;
        else attempt.destroy(); // The server is still starting.
      }
      try {
        for (const message of ["ping-1", "ping-2"]) {
          const echoed = until(socket, message);
          socket.write(message);
          await echoed;
        }
      } finally {
        socket.destroy();
      }
      const heads = new TextDecoder().decode(await runtime.readFile(handle, "heads.log"));
      assert.match(heads, /Connection: Upgrade/);
      assert.ok(!heads.toLowerCase().includes(name.toLowerCase()), `the server saw the credential: ${heads}`);
      assert.ok(!heads.includes(value));
    } finally {
      await server.kill();
      await runtime.destroy(handle);
    }
  });

  test("a second runtime instance on the same root gets an endpoint that works", async () => {
    const second = new LocalRuntime({ root: root.path, killGraceMs: 100 });
    const handle = await runtime.launch({ ports: [8103] });
    await runtime.writeFiles(handle, [{ path: "server.py", content: echoServer(8103) }]);
    const mine = await runtime.portEndpoint(handle, 8103);
    const server = await runtime.spawn(handle, { argv: ["python3", "server.py"] });
    try {
      await served(mine, "/first");
      const found = await second.getById(handle.id);
      assert.ok(found);
      const theirs = await second.portEndpoint(found, 8103);
      const seen = await served(theirs, "/second");
      assert.equal(Object.keys(seen).filter((header) => header.includes("sandport")).length, 0);
      // The first instance's endpoint keeps working too.
      await served(mine, "/first-again");
    } finally {
      await server.kill();
      await runtime.destroy(handle);
    }
  });
});
