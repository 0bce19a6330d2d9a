// Egress proxy sockets outlive the runtime process that listened on them: a process SIGKILLed (or simply ended)
// leaves its socket file in the sandbox's egress directory, where every relay of the sandbox would try it. A new
// runtime over the root removes those of gone processes, and never a live process's.
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { after, describe, test } from "node:test";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, ENTRY, runNodeChild, temporaryDirectory } from "../runtime.fixture.js";

const root = temporaryDirectory("egress-sockets");
after(() => root.remove());
const skip = await bwrapSkipReason();
const network = { allow: ["example.com"] };

const noCurl = existsSync("/usr/bin/curl") ? false : "needs /usr/bin/curl to reach the proxy";

describe("egress sockets of gone processes", { skip: skip ?? noCurl }, () => {
  test("a new runtime removes the socket of a killed runtime process, and keeps a live one's", async () => {
    const live = new LocalRuntime({ root: root.path });
    const handle = await live.launch({ network });
    // A child runtime serves the sandbox (its first command starts its proxy), then is SIGKILLed.
    const child = await runNodeChild(`
      const { LocalRuntime } = await import(${JSON.stringify(ENTRY)});
      const runtime = new LocalRuntime(${JSON.stringify({ root: root.path })});
      const handle = await runtime.getById(${JSON.stringify(handle.id)});
      await runtime.exec(handle, { argv: ["true"] });
      process.kill(process.pid, "SIGKILL");
    `);
    assert.equal(child.code, null, `the child runtime was killed: ${child.stderr}`);
    assert.equal((await live.exec(handle, { argv: ["true"] })).exitCode, 0);
    const egress = `${root.path}/${handle.id}/egress`;
    const sockets = () => readdirSync(egress).filter((name) => name.endsWith(".sock"));
    assert.equal(sockets().length, 2, "the killed process's socket and the live one's");

    const before = sockets();
    // A listing is a first use: the fresh runtime's reclaim runs.
    const fresh = new LocalRuntime({ root: root.path });
    await fresh.findByLabels({});
    assert.equal(sockets().length, 1, "the killed process's socket is gone, the live process's stays");
    const report = await fresh.reclaimLeftovers();
    const reclaimed = report.leftovers.filter((leftover) => leftover.kind === "socket");
    assert.deepEqual(
      reclaimed.map((leftover) => [leftover.path, leftover.reclaimed]),
      before.filter((name) => !sockets().includes(name)).map((name) => [`${egress}/${name}`, true]),
      "the report names the socket removed",
    );
    // The live proxy still answers through the relay: it refuses a host the list does not allow with its 403.
    const probe = await live.exec(handle, {
      argv: ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://elsewhere.test/"],
    });
    assert.equal(probe.stdout, "403", probe.stderr);
    await live.destroy(handle);
  });
});
