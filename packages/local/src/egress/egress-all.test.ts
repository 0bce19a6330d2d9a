// network "all" under namespaces: a network namespace of the sandbox's own whose only way out is the egress proxy,
// to public addresses; the host's loopback, private networks, metadata and own addresses stay out of reach.
// hostNetwork: true keeps the old sharing of the host's network namespace.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { after, before, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, temporaryDirectory, waitFor } from "../runtime.fixture.js";
import type { EgressRefusedEvent } from "./egress-proxy.js";

const skip = await bwrapSkipReason();
const root = temporaryDirectory("egress-all");
after(() => root.remove());

/** Fetches a URL with Python's urllib (which honours the proxy variables): the body, `HTTP <code>`, or `FAIL <error>`. */
const FETCH = [
  "import sys, urllib.request, urllib.error",
  "try:",
  "    print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())",
  "except urllib.error.HTTPError as error:",
  "    print('HTTP', error.code)",
  "except Exception as error:",
  "    print('FAIL', type(error).__name__)",
].join("\n");

/** Connects straight to host loopback, bypassing any proxy: prints `open` only if it connected. */
const DIRECT =
  "import socket, sys\ns = socket.socket()\ns.settimeout(5)\nprint('open' if s.connect_ex(('127.0.0.1', int(sys.argv[1]))) == 0 else 'closed')";

/** A public address standing for the internet (TEST-NET-1; nothing here may answer it: only the decision is asserted). */
const PUBLIC_ADDRESS = "192.0.2.1";

/** This machine's first non-loopback IPv4 address, if it has one. */
function ownAddress(): string | undefined {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) if (entry.family === "IPv4" && !entry.internal) return entry.address;
  }
  return undefined;
}

describe('namespaces: network "all"', { skip }, () => {
  const events: EgressRefusedEvent[] = [];
  const asked: string[] = [];
  const own = ownAddress();
  const resolve = async (host: string) => {
    asked.push(host);
    if (host === "public.test") return [PUBLIC_ADDRESS];
    if (host === "loopback.test") return ["127.0.0.1"];
    if (host === "self.test" && own) return [own];
    return [];
  };
  const runtime = new LocalRuntime({
    root: root.path,
    isolation: "namespaces",
    killGraceMs: 100,
    egressResolver: resolve,
    onEgressRefused: (event) => events.push(event),
  });
  const sharing = new LocalRuntime({ root: root.path, isolation: "namespaces", killGraceMs: 100, hostNetwork: true });
  let server: Server;
  let port: number;
  before(async () => {
    server = createServer((_request, response) => response.end("host"));
    // Every interface: the host's own non-loopback address answers too.
    await new Promise<void>((resolve) => server.listen(0, resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  const run = async (handle: Awaited<ReturnType<typeof runtime.launch>>, script: string, argument: string) => {
    const result = await runtime.exec(handle, { argv: ["python3", "-c", script, argument] });
    assert.equal(result.exitCode, 0, result.stderr);
    return result.stdout.trim();
  };

  test("host loopback, metadata and the host's own address are refused, directly and through the proxy, and observed", async () => {
    const handle = await runtime.launch({ network: "all" });
    try {
      events.length = 0;
      assert.equal(await run(handle, DIRECT, String(port)), "closed", "host loopback is not the sandbox's loopback");
      // An empty NO_PROXY sends the address literal to the proxy too (by default loopback is not proxied).
      const viaProxy = await runtime.exec(handle, {
        argv: ["python3", "-c", FETCH, `http://127.0.0.1:${port}/`],
        env: { NO_PROXY: "", no_proxy: "" },
      });
      assert.equal(viaProxy.stdout.trim(), "HTTP 403", viaProxy.stderr);
      assert.equal(await run(handle, FETCH, `http://loopback.test:${port}/`), "HTTP 403");
      assert.equal(await run(handle, FETCH, "http://169.254.169.254/latest/meta-data/"), "HTTP 403");
      const refused = [
        ["127.0.0.1", port],
        ["loopback.test", port],
        ["169.254.169.254", 80],
      ];
      if (own) {
        assert.equal(await run(handle, FETCH, `http://self.test:${port}/`), "HTTP 403");
        refused.push(["self.test", port]);
      }
      assert.deepEqual(
        events.map((event) => [event.host, event.port]),
        refused,
      );
      assert.ok(events.every((event) => event.sandboxId === handle.id));
    } finally {
      await runtime.destroy(handle);
    }
  });

  test("a name resolving to a public address is dialled (the proxy decides to connect; nothing here answers it)", async () => {
    const handle = await runtime.launch({ network: "all" });
    try {
      events.length = 0;
      asked.length = 0;
      const answer = await run(handle, FETCH, `http://public.test:${port}/`);
      // Dialled and failed (502), or still connecting when the client gave up: never the policy's 403.
      assert.match(answer, /^(HTTP 502|FAIL )/);
      assert.deepEqual(asked, ["public.test"], "the proxy resolved the name");
      assert.deepEqual(events, [], "no refusal");
    } finally {
      await runtime.destroy(handle);
    }
  });

  test("hostNetwork: true shares the host's network namespace, host loopback included", async () => {
    const handle = await sharing.launch({ network: "all" });
    try {
      const result = await sharing.exec(handle, { argv: ["python3", "-c", DIRECT, String(port)] });
      assert.equal(result.stdout.trim(), "open", result.stderr);
      assert.equal(handle.network, true);
    } finally {
      await sharing.destroy(handle);
    }
  });

  test("a port declared at launch is reached through the runtime's own path", async () => {
    const handle = await runtime.launch({ network: "all", ports: [8000] });
    try {
      await runtime.writeFiles(handle, [{ path: "index.html", content: "served" }]);
      const server = await runtime.spawn(handle, { argv: ["python3", "-m", "http.server", "8000", "-b", "127.0.0.1"] });
      try {
        const { url, headers } = await runtime.portEndpoint(handle, 8000);
        let body = "";
        const served = async () => {
          body = await fetch(`${url}/index.html`, { headers: { ...headers } }).then(
            (response) => response.text(),
            () => "",
          );
          return body === "served";
        };
        assert.ok(await waitFor(served, 10_000), `the server answered ${body}`);
        assert.equal(body, "served");
      } finally {
        await server.kill();
      }
    } finally {
      await runtime.destroy(handle);
    }
  });
});

test("hostNetwork must be a boolean", () => {
  assert.throws(
    () => new LocalRuntime({ root: root.path, hostNetwork: "yes" as unknown as boolean }),
    (error) => SandportError.hasCode(error, "INVALID_REQUEST") && /hostNetwork/.test(error.message),
  );
});
