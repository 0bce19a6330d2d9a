// namespaceScope "sandbox": every command of a sandbox joins one PID, network, IPC and UTS namespace set,
// kept by a holder process that outlives the runtime and dies (with everything in it) on destroy.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { markerSweepScript } from "@sandport/core/adapter";
import { LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import { runsAsRoot } from "../options.js";
import {
  bwrapSkipReason,
  ENTRY,
  PACKAGE_DIRECTORY,
  runNodeChild,
  temporaryDirectory,
  uniqueSleep,
  waitFor,
} from "../runtime.fixture.js";
import type { SandboxRecord } from "../store/sandbox-record.js";
import { processesInNamespace } from "./sandbox-namespaces.js";

const skip = (await bwrapSkipReason()) ?? (runsAsRoot() ? undefined : "shared namespaces need a root runtime");
const root = temporaryDirectory("shared-namespaces");
after(() => root.remove());
const options: LocalRuntimeOptions = { root: root.path, namespaceScope: "sandbox", killGraceMs: 100 };

/** The holder recorded for a sandbox, from its metadata file. */
function holderOf(id: string): NonNullable<SandboxRecord["namespaces"]> {
  const record = JSON.parse(readFileSync(join(root.path, id, "sandbox.json"), "utf8")) as SandboxRecord;
  assert.ok(record.namespaces, "the record names the holder");
  return record.namespaces;
}

/** Prints `open` when something listens on 127.0.0.1:<port> as the command sees it, else `closed`. */
const probe = (port: number) =>
  `python3 -c 'import socket;s=socket.socket();print("open" if s.connect_ex(("127.0.0.1",${port}))==0 else "closed")'`;
/** Serves on 127.0.0.1:<port>, printing `bound` once it listens. */
const serve = (port: number) =>
  `python3 -c 'import socket,time;s=socket.socket();s.bind(("127.0.0.1",${port}));s.listen();print("bound",flush=True);time.sleep(120)'`;

async function firstOutput(process: Awaited<ReturnType<LocalRuntime["spawn"]>>, text: string): Promise<void> {
  for await (const event of process.events) {
    if (event.type === "stdout" && event.data.includes(text)) return;
    if (event.type === "exited") assert.fail(`exited before printing ${text}: ${JSON.stringify(event.result)}`);
  }
}

describe('namespaceScope "sandbox"', { skip }, () => {
  const runtime = new LocalRuntime(options);

  test("a second command sees the first one's processes; another sandbox does not", async () => {
    const [handle, other] = await Promise.all([runtime.launch(), runtime.launch()]);
    const duration = uniqueSleep();
    const first = await runtime.spawn(handle, { argv: ["sleep", duration] });
    const look = { shell: `grep -lzx -- ${duration.replace(".", "[.]")} /proc/[0-9]*/cmdline 2>/dev/null | wc -l` };
    assert.ok(await waitFor(async () => (await runtime.exec(handle, look)).stdout.trim() === "1", 5_000));
    assert.equal((await runtime.exec(other, look)).stdout.trim(), "0");
    await first.kill();
    await Promise.all([runtime.destroy(handle), runtime.destroy(other)]);
  });

  test("a server spawned on 127.0.0.1 is reachable from another command of the sandbox, not from another sandbox or the host", async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const [handle, other] = await Promise.all([runtime.launch(), runtime.launch()]);
    const server = await runtime.spawn(handle, { shell: serve(port) });
    await firstOutput(server, "bound");
    assert.equal((await runtime.exec(handle, { shell: probe(port) })).stdout, "open\n");
    assert.equal((await runtime.exec(other, { shell: probe(port) })).stdout, "closed\n");
    const host = await new Promise<string>((resolve) => {
      const child = spawn("python3", ["-c", probe(port).slice("python3 -c '".length, -1)], { stdio: "pipe" });
      let out = "";
      child.stdout.on("data", (chunk) => {
        out += chunk;
      });
      child.on("close", () => resolve(out));
    });
    assert.equal(host, "closed\n", "the host's loopback is not the sandbox's");
    await server.kill();
    await Promise.all([runtime.destroy(handle), runtime.destroy(other)]);
  });

  test("a marker sweep from a second command kills the first command's processes", async () => {
    const handle = await runtime.launch();
    const duration = uniqueSleep();
    const first = await runtime.spawn(handle, { shell: `sleep ${duration} & sleep ${duration}`, env: { JOB: "m-1" } });
    const count = { shell: `grep -lzx -- ${duration.replace(".", "[.]")} /proc/[0-9]*/cmdline 2>/dev/null | wc -l` };
    assert.ok(await waitFor(async () => (await runtime.exec(handle, count)).stdout.trim() === "2", 5_000));
    const sweep = await runtime.exec(handle, { shell: markerSweepScript("JOB", "m-1") });
    assert.equal(sweep.exitCode, 0, sweep.stderr);
    const result = await first.result;
    assert.notEqual(result.exitCode, 0, "the first command was killed");
    assert.equal((await runtime.exec(handle, count)).stdout.trim(), "0");
    await runtime.destroy(handle);
  });

  test("destroy leaves no process of the sandbox alive, also one that left the command and dropped its marker", async () => {
    const handle = await runtime.launch();
    const { pidNamespace } = holderOf(handle.id);
    // setsid + env -i: outside the command's process group, without its marker, reparented to the holder.
    // The command waits until the escapee has dropped the marker: its exit kills what still carries it.
    const escaped = await runtime.exec(handle, {
      shell: `setsid env -i sleep 300 </dev/null >/dev/null 2>&1 & p=$!; until [ "$(tr '\\0' ' ' < /proc/$p/cmdline)" = "sleep 300 " ]; do :; done; echo started`,
    });
    assert.equal(escaped.stdout, "started\n");
    const running = await runtime.spawn(handle, { argv: ["sleep", "300"] });
    const sleeping = () =>
      processesInNamespace(pidNamespace).filter(
        (pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8") === "sleep\u0000300\u0000",
      );
    assert.ok(await waitFor(() => sleeping().length === 2, 5_000), "the escapee and the spawned command run in it");
    await runtime.destroy(handle);
    assert.deepEqual(processesInNamespace(pidNamespace), []);
    assert.notEqual((await running.result).exitCode, 0);
  });

  test("nested user namespaces are refused inside; the command runs as the sandbox's own uid without capabilities", async () => {
    const handle = await runtime.launch();
    const result = await runtime.exec(handle, {
      shell: "unshare -U true && echo nested; id -u; grep -E '^Cap(Eff|Bnd)' /proc/self/status",
    });
    assert.doesNotMatch(result.stdout, /nested/);
    const record = JSON.parse(readFileSync(join(root.path, handle.id, "sandbox.json"), "utf8")) as SandboxRecord;
    assert.ok(record.user && record.user.uid !== 65534, "the record names a uid of the sandbox's own");
    assert.match(result.stdout, new RegExp(`^${record.user.uid}\nCapEff:\t0+\nCapBnd:\t0+\n$`));
    await runtime.destroy(handle);
  });

  test("/tmp is a directory outside the workspace as commands see it, shared by them, kept in the workspace's .tmp", async () => {
    const handle = await runtime.launch();
    assert.equal((await runtime.exec(handle, { shell: "echo kept > /tmp/f; readlink -f /tmp/f" })).stdout, "/tmp/f\n");
    assert.equal((await runtime.exec(handle, { shell: "cat /tmp/f" })).stdout, "kept\n");
    assert.equal(readFileSync(join(handle.workspaceDirectory, ".tmp", "f"), "utf8"), "kept\n");
    await runtime.destroy(handle);
  });

  test("a runtime in a new process joins the namespaces of a sandbox another process launched", async () => {
    const duration = uniqueSleep();
    const child = await runNodeChild(`
      import { LocalRuntime } from ${JSON.stringify(ENTRY)};
      const runtime = new LocalRuntime(${JSON.stringify(options)});
      const handle = await runtime.launch();
      await runtime.startCommand(handle, { sessionId: "s", shell: "sleep ${duration}" });
      console.log(handle.id);
    `);
    assert.equal(child.code, 0, child.stderr);
    const fresh = new LocalRuntime(options);
    const handle = await fresh.getById(child.stdout.trim());
    assert.ok(handle);
    const look = { shell: `grep -lzx -- ${duration.replace(".", "[.]")} /proc/[0-9]*/cmdline 2>/dev/null | wc -l` };
    assert.ok(
      await waitFor(async () => (await fresh.exec(handle, look)).stdout.trim() === "1", 5_000),
      "the async command the exited process started is visible",
    );
    const { pidNamespace } = holderOf(handle.id);
    await fresh.destroy(handle);
    assert.deepEqual(processesInNamespace(pidNamespace), []);
  });

  test("a declared port reaches a server that a command of a sandbox without network serves", async () => {
    const handle = await runtime.launch({ ports: [8080] });
    const server = await runtime.spawn(handle, { shell: "python3 -u -m http.server 8080 --bind 127.0.0.1" });
    await firstOutput(server, "Serving HTTP");
    const { url, headers } = await runtime.portEndpoint(handle, 8080);
    // Through the runtime's forwarder and a relay beside a later command, in the same network namespace.
    const relay = await runtime.spawn(handle, { argv: ["sleep", "60"] });
    const response = await fetch(url, { headers: { ...headers } });
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    await Promise.all([server.kill(), relay.kill()]);
    await runtime.destroy(handle);
  });

  test("a holder that is gone: commands fail with NOT_FOUND, destroy still succeeds", async () => {
    const handle = await runtime.launch();
    const holder = holderOf(handle.id);
    process.kill(holder.pid, "SIGKILL");
    assert.ok(await waitFor(() => processesInNamespace(holder.pidNamespace).length === 0, 5_000));
    await assert.rejects(runtime.exec(handle, { argv: ["true"] }), (error) =>
      SandportError.hasCode(error, "NOT_FOUND"),
    );
    await runtime.destroy(handle);
    assert.equal(await runtime.getById(handle.id), undefined);
  });
});

test('"sandbox" is refused at construction under isolation "none" and when not root', async () => {
  assert.throws(
    () => new LocalRuntime({ root: root.path, isolation: "none", namespaceScope: "sandbox" }),
    (error) =>
      SandportError.hasCode(error, "INVALID_REQUEST") && /isolation "namespaces"/.test((error as Error).message),
  );
  assert.throws(
    () => new LocalRuntime({ namespaceScope: "everything" as "sandbox" }),
    (error) => SandportError.hasCode(error, "INVALID_REQUEST"),
  );
  if (!runsAsRoot()) {
    assert.throws(
      () => new LocalRuntime({ root: root.path, namespaceScope: "sandbox" }),
      (error) => SandportError.hasCode(error, "INVALID_REQUEST") && /root/.test((error as Error).message),
    );
    return;
  }
  // As root: the same construction in a process running as an unprivileged user.
  const script = `
    import { LocalRuntime } from ${JSON.stringify(ENTRY)};
    try { new LocalRuntime({ namespaceScope: "sandbox" }); console.log("constructed"); }
    catch (error) { console.log(error.code, error.message); }
  `;
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: PACKAGE_DIRECTORY,
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/nonexistent" },
      uid: 65534,
      gid: 65534,
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", reject);
    child.on("close", () => resolve(out));
  });
  assert.match(output, /^INVALID_REQUEST .*needs a runtime running as root/, output);
});
