// Allow lists under namespaceScope "sandbox": the sandbox's commands share one network namespace, so one
// egress relay serves them all, started by the first command and gone with the sandbox's namespaces.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { LocalRuntime } from "../index.js";
import { runsAsRoot } from "../options.js";
import { bwrapSkipReason, ENTRY, runNodeChild, temporaryDirectory } from "../runtime.fixture.js";
import type { SandboxRecord } from "../store/sandbox-record.js";
import type { EgressRefusedEvent } from "./egress-proxy.js";
import { EGRESS_RELAY_FILE } from "./egress-relay-source.js";

const skip = (await bwrapSkipReason()) ?? (runsAsRoot() ? undefined : "shared namespaces need a root runtime");
const root = temporaryDirectory("egress-shared");
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

/** Host pids of the egress relays in the PID namespace `pidNamespace` (the relay's launcher exits once it listens). */
function relaysIn(pidNamespace: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/ns/pid`) !== pidNamespace) continue;
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(EGRESS_RELAY_FILE)) found.push(Number(name));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

/** What a process holds open, by link target (`socket:[…]`, `/dev/null`, `pipe:[…]`, `net:[…]`, …). */
function descriptorsOf(pid: number): string[] {
  return readdirSync(`/proc/${pid}/fd`).map((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return "gone";
    }
  });
}

describe('namespaceScope "sandbox": network allow lists', { skip }, () => {
  const events: EgressRefusedEvent[] = [];
  const runtime = new LocalRuntime({
    root: root.path,
    namespaceScope: "sandbox",
    killGraceMs: 100,
    egressResolver: async (host) => (host.endsWith(".test") ? ["127.0.0.1"] : []),
    onEgressRefused: (event) => events.push(event),
  });
  let server: Server;
  let port: number;
  before(async () => {
    server = createServer((_request, response) => response.end("allowed"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  test("one relay serves every command: an allowed name is reached, another refused; destroy leaves none", async () => {
    const handle = await runtime.launch({ network: { allow: [`allowed.test:${port}`, "127.0.0.1/32"] } });
    const record = JSON.parse(readFileSync(join(root.path, handle.id, "sandbox.json"), "utf8")) as SandboxRecord;
    const pidNamespace = record.namespaces?.pidNamespace as string;
    assert.ok(pidNamespace, "the sandbox has namespaces of its own");
    let relays: number[] = [];
    try {
      const fetch = async (url: string) => {
        const result = await runtime.exec(handle, { argv: ["python3", "-c", FETCH, url] });
        assert.equal(result.exitCode, 0, `${url}: ${result.stderr}`);
        return result.stdout.trim();
      };
      events.length = 0;
      assert.equal(await fetch(`http://allowed.test:${port}/`), "allowed");
      assert.equal(await fetch(`http://elsewhere.test:${port}/`), "HTTP 403");
      assert.deepEqual(
        events.map((event) => [event.sandboxId, event.host, event.port]),
        [[handle.id, "elsewhere.test", port]],
      );
      const answers = await Promise.all(Array.from({ length: 6 }, () => fetch(`http://allowed.test:${port}/`)));
      assert.deepEqual(answers, Array(6).fill("allowed"), "concurrent commands all reach it");
      relays = relaysIn(pidNamespace);
      assert.equal(relays.length, 1, `one relay for the sandbox, not one per command (${relays.join(", ")})`);
      const held = descriptorsOf(relays[0] as number);
      // Node's own pipes (signals, the event loop) have both ends in the relay; a command's stdio pipe would have one.
      const pipes = held.filter((target) => target.startsWith("pipe:"));
      assert.deepEqual(
        pipes.filter((pipe) => pipes.filter((other) => other === pipe).length !== 2),
        [],
        `the relay holds no end of a command's pipe (${held.join(", ")})`,
      );
      assert.deepEqual(
        held.filter((target) => /^(net|user|pid|ipc|uts|mnt):/.test(target)),
        [],
        "the relay holds no namespace descriptor",
      );
      const left = await runtime.exec(handle, { shell: "ls -A /tmp" });
      assert.doesNotMatch(left.stdout, /sandport-egress/, "no FIFO is left behind");
    } finally {
      await runtime.destroy(handle);
    }
    assert.deepEqual(
      relays.filter((pid) => {
        try {
          return readlinkSync(`/proc/${pid}/ns/pid`) === pidNamespace;
        } catch {
          return false;
        }
      }),
      [],
      "the relay did not outlive destroy",
    );
    assert.deepEqual(relaysIn(pidNamespace), []);
  });

  test("concurrent first commands all reach it, through one relay", async () => {
    const handle = await runtime.launch({ network: { allow: [`allowed.test:${port}`, "127.0.0.1/32"] } });
    try {
      const record = JSON.parse(readFileSync(join(root.path, handle.id, "sandbox.json"), "utf8")) as SandboxRecord;
      const url = `http://allowed.test:${port}/`;
      const answers = await Promise.all(
        Array.from({ length: 6 }, async () =>
          (await runtime.exec(handle, { argv: ["python3", "-c", FETCH, url] })).stdout.trim(),
        ),
      );
      assert.deepEqual(answers, Array(6).fill("allowed"));
      assert.equal(relaysIn(record.namespaces?.pidNamespace as string).length, 1, "the losers of the race left none");
    } finally {
      await runtime.destroy(handle);
    }
  });

  test('"all" goes through the same sandbox-wide relay: a name at host loopback is refused, observed', async () => {
    const handle = await runtime.launch({ network: "all" });
    try {
      events.length = 0;
      const result = await runtime.exec(handle, { argv: ["python3", "-c", FETCH, `http://allowed.test:${port}/`] });
      assert.equal(result.stdout.trim(), "HTTP 403", result.stderr);
      assert.deepEqual(
        events.map((event) => [event.host, event.addresses]),
        [["allowed.test", ["127.0.0.1"]]],
      );
    } finally {
      await runtime.destroy(handle);
    }
  });

  test("the relay outlives the runtime process that started it and finds a later instance's proxy", async () => {
    const child = await runNodeChild(`
      import { LocalRuntime } from ${JSON.stringify(ENTRY)};
      const runtime = new LocalRuntime({
        root: ${JSON.stringify(root.path)},
        namespaceScope: "sandbox",
        egressResolver: async () => ["127.0.0.1"],
      });
      const handle = await runtime.launch({ network: { allow: ["allowed.test:${port}", "127.0.0.1/32"] } });
      const result = await runtime.exec(handle, { argv: ["python3", "-c", ${JSON.stringify(FETCH)}, "http://allowed.test:${port}/"] });
      console.log(JSON.stringify({ id: handle.id, answer: result.stdout.trim() }));
    `);
    assert.equal(child.code, 0, child.stderr);
    const { id, answer } = JSON.parse(child.stdout) as { id: string; answer: string };
    assert.equal(answer, "allowed", "the first runtime process reached it");
    const handle = await runtime.getById(id);
    assert.ok(handle);
    try {
      const result = await runtime.exec(handle, { argv: ["python3", "-c", FETCH, `http://allowed.test:${port}/`] });
      assert.equal(result.stdout.trim(), "allowed", "this instance's proxy serves the relay the exited one started");
    } finally {
      await runtime.destroy(handle);
    }
  });
});
