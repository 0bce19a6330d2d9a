// Allow lists under namespaces: a sandbox reaches the allowed names through the runtime's egress proxy and nothing else.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";
import type { EgressRefusedEvent } from "./egress-proxy.js";

const skipNamespaces = await bwrapSkipReason();
const root = temporaryDirectory("egress");
after(() => root.remove());

/** Fetches a URL with Python's urllib (which honours the proxy variables): the body, `HTTP <code>`, or `FAIL <error>`. */
const FETCH = [
  "import sys, urllib.request, urllib.error",
  "try:",
  "    print(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())",
  "except urllib.error.HTTPError as error:",
  "    print('HTTP', error.code)",
  "except Exception as error:",
  "    print('FAIL', type(error).__name__)",
].join("\n");

/** Connects straight to host loopback, bypassing any proxy: exit 0 only if it connected. */
const DIRECT = "import socket, sys\nsocket.create_connection(('127.0.0.1', int(sys.argv[1])), 5)";

async function serve(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_request, response) => response.end(name));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe("namespaces: network allow lists", { skip: skipNamespaces }, () => {
  const events: EgressRefusedEvent[] = [];
  const runtime = new LocalRuntime({
    root: root.path,
    isolation: "namespaces",
    killGraceMs: 100,
    egressResolver: async (host) => (host.endsWith(".test") ? ["127.0.0.1"] : []),
    onEgressRefused: (event) => events.push(event),
  });
  let allowed: { server: Server; port: number };
  let other: { server: Server; port: number };
  before(async () => {
    allowed = await serve("allowed");
    other = await serve("other");
  });
  after(() => {
    allowed.server.close();
    other.server.close();
  });

  const fetch = async (handle: Awaited<ReturnType<typeof runtime.launch>>, url: string) =>
    (await runtime.exec(handle, { argv: ["python3", "-c", FETCH, url] })).stdout.trim();

  test("an allowed name is reached through the proxy variables; another name or port is refused, and observed", async () => {
    const handle = await runtime.launch({ network: { allow: [`allowed.test:${allowed.port}`, "127.0.0.1/32"] } });
    try {
      events.length = 0;
      assert.equal(await fetch(handle, `http://allowed.test:${allowed.port}/`), "allowed");
      if (existsSync("/usr/bin/curl")) {
        // curl through the proxy variables with a CONNECT tunnel (as for https), where the host has curl.
        const tunnelled = await runtime.exec(handle, {
          argv: ["curl", "-sS", "-p", `http://allowed.test:${allowed.port}/`],
        });
        assert.equal(tunnelled.stdout, "allowed", tunnelled.stderr);
      }
      assert.equal(await fetch(handle, `http://allowed.test:${other.port}/`), "HTTP 403");
      assert.equal(await fetch(handle, `http://elsewhere.test:${allowed.port}/`), "HTTP 403");
      assert.deepEqual(
        events.map((event) => [event.sandboxId, event.host, event.port]),
        [
          [handle.id, "allowed.test", other.port],
          [handle.id, "elsewhere.test", allowed.port],
        ],
      );
      const direct = await runtime.exec(handle, { argv: ["python3", "-c", DIRECT, String(other.port)] });
      assert.notEqual(direct.exitCode, 0, "host loopback is not the sandbox's loopback");
    } finally {
      await runtime.destroy(handle);
    }
  });

  test("concurrent commands of one sandbox each get their relay (one FIFO name each in the shared /tmp)", async () => {
    const handle = await runtime.launch({ network: { allow: [`allowed.test:${allowed.port}`, "127.0.0.1/32"] } });
    try {
      const url = `http://allowed.test:${allowed.port}/`;
      const answers = await Promise.all(Array.from({ length: 4 }, () => fetch(handle, url)));
      assert.deepEqual(answers, ["allowed", "allowed", "allowed", "allowed"]);
      const left = await runtime.exec(handle, { shell: "ls -A /tmp" });
      assert.doesNotMatch(left.stdout, /sandport-egress/, "no FIFO is left behind");
    } finally {
      await runtime.destroy(handle);
    }
  });

  test("an allowed name at host loopback is refused without a CIDR entry naming it", async () => {
    const handle = await runtime.launch({ network: { allow: [`allowed.test:${allowed.port}`] } });
    try {
      events.length = 0;
      assert.equal(await fetch(handle, `http://allowed.test:${allowed.port}/`), "HTTP 403");
      assert.equal(events.length, 1);
      assert.deepEqual(events[0]?.addresses, ["127.0.0.1"]);
      assert.match(events[0]?.reason ?? "", /loopback/);
    } finally {
      await runtime.destroy(handle);
    }
  });

  test('"none" reaches nothing, host loopback included', async () => {
    const handle = await runtime.launch({ network: "none" });
    try {
      assert.match(await fetch(handle, `http://allowed.test:${allowed.port}/`), /^FAIL/);
      const direct = await runtime.exec(handle, { argv: ["python3", "-c", DIRECT, String(allowed.port)] });
      assert.notEqual(direct.exitCode, 0);
    } finally {
      await runtime.destroy(handle);
    }
  });
});

describe('isolation "none": nothing can be enforced', () => {
  const runtime = new LocalRuntime({ root: root.path, isolation: "none" });
  test('an allow list and "none" are UNSUPPORTED before anything is created', async () => {
    for (const network of [{ allow: ["allowed.test"] }, "none" as const, false]) {
      await assert.rejects(runtime.launch({ network, labels: { egress: "refused" } }), (error) =>
        SandportError.hasCode(error, "UNSUPPORTED"),
      );
    }
    assert.deepEqual(await runtime.findByLabels({ egress: "refused" }), []);
  });
});
