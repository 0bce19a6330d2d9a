// sandboxd behind the emulated sandbox-router: the ProcessService spoken by a real gRPC client
// (@grpc/grpc-js over h2c) with messages built from process.proto's field numbers, the REST file
// API with raw fetch, and the router's header rules. Commands run for real on the backend.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type * as grpc from "@grpc/grpc-js";
import {
  api,
  CORE_SANDBOXES,
  claimReady,
  type Json,
  processClient,
  processConfig,
  readyOf,
  routing,
  routingMetadata,
  type StartEvent,
  startRequest,
  startStream,
  unary,
  watch,
} from "./client.fixture.js";
import { type KubernetesEmulator, startKubernetesEmulator } from "./emulator.js";
import { kubernetesEmulatorSkipReason } from "./pod-workspace.js";

import { ProtoWriter } from "./protobuf.js";

/** The emulator needs pods with their own `/workspace` (see `kubernetesEmulatorSkipReason`). */
const skip = await kubernetesEmulatorSkipReason();

const GRPC_NOT_FOUND = 5;
const GRPC_PERMISSION_DENIED = 7;
const GRPC_FAILED_PRECONDITION = 9;
const GRPC_UNAVAILABLE = 14;

describe("Kubernetes emulator: sandboxd through the router", { skip }, () => {
  let emulator: KubernetesEmulator;
  let client: grpc.Client;
  let sandbox: string;
  let plain: string;
  before(async () => {
    emulator = await startKubernetesEmulator();
    client = processClient(emulator);
    const claim = await claimReady(emulator, {
      metadata: { name: "worker" },
      spec: { warmPoolRef: { name: "sandboxd-pool" }, env: [{ name: "GREETING", value: "from-claim" }] },
    });
    sandbox = claim.status.sandbox.name;
    plain = (await claimReady(emulator, { metadata: { name: "plain" }, spec: { warmPoolRef: { name: "plain-pool" } } }))
      .status.sandbox.name;
  });
  after(async () => {
    client?.close();
    await emulator.stop();
  });

  test("Execute runs argv to completion with env and cwd; the claim's env reaches it", async () => {
    const request = new ProtoWriter()
      .bytes(1, processConfig(["sh", "-c", 'echo "$GREETING $EXTRA"; pwd; echo oops >&2; exit 3'], { EXTRA: "x" }))
      .finish();
    const response = await unary(client, "Execute", request, routingMetadata(sandbox));
    assert.equal(response.int32(1), 3);
    const lines = response.string(2).trim().split("\n");
    assert.equal(lines[0], "from-claim x");
    assert.equal(response.string(3), "oops\n");
    await assert.rejects(
      unary(
        client,
        "Execute",
        new ProtoWriter().bytes(1, processConfig(["no-such-program-here"])).finish(),
        routingMetadata(sandbox),
      ),
      (error: grpc.ServiceError) => error.code === GRPC_NOT_FOUND,
    );
    await assert.rejects(
      unary(
        client,
        "Execute",
        new ProtoWriter().bytes(1, processConfig(["true"], {}, "../etc")).finish(),
        routingMetadata(sandbox),
      ),
      (error: grpc.ServiceError) => error.code === GRPC_PERMISSION_DENIED,
    );
  });

  test("Start streams init, stdout and stderr, then exit; WriteStdin feeds it and its eof ends the input", async () => {
    const events: StartEvent[] = [];
    let resolveInit: (id: number) => void = () => {};
    const init = new Promise<number>((resolve) => {
      resolveInit = resolve;
    });
    const { done } = startStream(
      client,
      startRequest(["sh", "-c", 'while read line; do echo "got:$line"; echo "err:$line" >&2; done; exit 7']),
      routingMetadata(sandbox),
      (event) => {
        events.push(event);
        if (event.kind === "init") resolveInit(event.processId);
      },
    );
    const processId = await init;
    const stdin = (payload: ProtoWriter) => unary(client, "WriteStdin", payload.finish(), routingMetadata(sandbox));
    await stdin(new ProtoWriter().varint(1, processId).bytes(2, "one\ntwo\n"));
    await stdin(new ProtoWriter().varint(1, processId).bytes(3, new ProtoWriter()));
    await done;
    assert.equal(events[0]!.kind, "init");
    const text = (kind: "stdout" | "stderr") =>
      Buffer.concat(events.flatMap((event) => (event.kind === kind ? [event.data] : []))).toString();
    assert.equal(text("stdout"), "got:one\ngot:two\n");
    assert.equal(text("stderr"), "err:one\nerr:two\n");
    assert.deepEqual(events.at(-1), { kind: "exit", exitCode: 7 });
    await assert.rejects(
      stdin(new ProtoWriter().varint(1, processId).bytes(2, "late")),
      (error: grpc.ServiceError) => error.code === GRPC_NOT_FOUND,
    );
  });

  test("a Start stream whose client stops reading holds its process back; the connection's other calls go on", async () => {
    const total = 64 * 1024 * 1024;
    let received = 0;
    let processId: number | undefined;
    let exitCode: number | undefined;
    let onPaused: (() => void) | undefined;
    const paused = new Promise<void>((resolve) => {
      onPaused = resolve;
    });
    const { done, call } = startStream(
      client,
      startRequest(["head", "-c", String(total), "/dev/zero"]),
      routingMetadata(sandbox),
      (event) => {
        if (event.kind === "init") processId = event.processId;
        if (event.kind === "exit") exitCode = event.exitCode;
        if (event.kind !== "stdout") return;
        received += event.data.length;
        if (onPaused === undefined) return;
        // The first chunk read, the client reads no more until resumed.
        call.pause();
        onPaused();
        onPaused = undefined;
      },
    );
    await paused;
    // Long enough for `head` to have written everything many times over, had nothing held it back.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Held back, not ended (sandboxd forgets a process once it ended: NOT_FOUND): without a terminal, a
    // resize is refused for that reason alone.
    const resize = new ProtoWriter()
      .varint(1, processId ?? -1)
      .varint(2, 80)
      .varint(3, 24)
      .finish();
    await assert.rejects(
      unary(client, "ResizeTTY", resize, routingMetadata(sandbox)),
      (error: grpc.ServiceError) => error.code === GRPC_FAILED_PRECONDITION,
    );
    const alive = new ProtoWriter().bytes(1, processConfig(["echo", "alive"])).finish();
    assert.equal((await unary(client, "Execute", alive, routingMetadata(sandbox))).string(2), "alive\n");
    call.resume();
    await done;
    assert.deepEqual([received, exitCode], [total, 0]);
  });

  test("SendSignal reaches the process group: a child of the command dies too; the exit code is -1", async () => {
    let resolveReady: (id: number) => void = () => {};
    const ready = new Promise<number>((resolve) => {
      resolveReady = resolve;
    });
    let processId = 0;
    const output: string[] = [];
    const events: StartEvent[] = [];
    const { done } = startStream(
      client,
      startRequest(["sh", "-c", 'sleep 300 & echo "child:$!"; wait']),
      routingMetadata(sandbox),
      (event) => {
        events.push(event);
        if (event.kind === "init") processId = event.processId;
        if (event.kind === "stdout") {
          output.push(event.data.toString());
          if (output.join("").includes("\n")) resolveReady(processId);
        }
      },
    );
    await ready;
    const child = /child:(\d+)/.exec(output.join(""))![1]!;
    await unary(
      client,
      "SendSignal",
      new ProtoWriter().varint(1, processId).varint(2, 15).finish(),
      routingMetadata(sandbox),
    );
    await done;
    assert.deepEqual(events.at(-1), { kind: "exit", exitCode: -1 });
    // The backgrounded child was in the group: it goes as well (waited for, up to 5 s; a zombie
    // the host has not reaped yet counts as gone).
    const gone = `for i in $(seq 250); do s=$(cut -d' ' -f3 /proc/${child}/stat 2>/dev/null); if [ -z "$s" ] || [ "$s" = Z ]; then echo gone; exit; fi; sleep 0.02; done; echo alive`;
    const check = await unary(
      client,
      "Execute",
      new ProtoWriter().bytes(1, processConfig(["sh", "-c", gone])).finish(),
      routingMetadata(sandbox),
    );
    assert.equal(check.string(2).trim(), "gone");
  });

  test("a PTY process takes ResizeTTY; a process without one refuses it with FAILED_PRECONDITION", async () => {
    let processId = 0;
    let resolveInit: () => void = () => {};
    const init = new Promise<void>((resolve) => {
      resolveInit = resolve;
    });
    const output: Buffer[] = [];
    const { done } = startStream(
      client,
      startRequest(["sh", "-c", "read go; stty size"], { pty: { cols: 80, rows: 24 } }),
      routingMetadata(sandbox),
      (event) => {
        if (event.kind === "init") {
          processId = event.processId;
          resolveInit();
        }
        if (event.kind === "stdout") output.push(event.data);
      },
    );
    await init;
    await unary(
      client,
      "ResizeTTY",
      new ProtoWriter().varint(1, processId).varint(2, 132).varint(3, 40).finish(),
      routingMetadata(sandbox),
    );
    await unary(
      client,
      "WriteStdin",
      new ProtoWriter().varint(1, processId).bytes(2, "\n").finish(),
      routingMetadata(sandbox),
    );
    await done;
    assert.match(Buffer.concat(output).toString(), /40 132/);

    let plainId = 0;
    let resolvePlain: () => void = () => {};
    const plainInit = new Promise<void>((resolve) => {
      resolvePlain = resolve;
    });
    const plainRun = startStream(client, startRequest(["sh", "-c", "read x"]), routingMetadata(sandbox), (event) => {
      if (event.kind === "init") {
        plainId = event.processId;
        resolvePlain();
      }
    });
    await plainInit;
    await assert.rejects(
      unary(
        client,
        "ResizeTTY",
        new ProtoWriter().varint(1, plainId).varint(2, 10).varint(3, 10).finish(),
        routingMetadata(sandbox),
      ),
      (error: grpc.ServiceError) => error.code === GRPC_FAILED_PRECONDITION,
    );
    await unary(
      client,
      "WriteStdin",
      new ProtoWriter().varint(1, plainId).bytes(3, new ProtoWriter()).finish(),
      routingMetadata(sandbox),
    );
    await plainRun.done;
  });

  test("a process the command detached outlives it, and ends when the pod goes (suspend)", async () => {
    const name = (
      await claimReady(emulator, { metadata: { name: "detacher" }, spec: { warmPoolRef: { name: "sandboxd-pool" } } })
    ).status.sandbox.name as string;
    const execute = async (script: string) => {
      const request = new ProtoWriter().bytes(1, processConfig(["sh", "-c", script])).finish();
      const response = await unary(client, "Execute", request, routingMetadata(name));
      return { exitCode: response.int32(1), stdout: response.string(2) };
    };
    // Execute answers at the command's end, with the detached sleep still running.
    const detached = await execute("setsid sleep 61 </dev/null >/dev/null 2>&1 & echo $! > /workspace/left.pid");
    assert.equal(detached.exitCode, 0);
    // A killed process nobody has reaped yet (a zombie: reparented to an init that reaps late) is gone.
    const probe =
      'state=$(cut -d" " -f3 "/proc/$(cat /workspace/left.pid)/stat" 2>/dev/null); [ -n "$state" ] && [ "$state" != Z ] && echo alive || echo gone';
    assert.equal((await execute(probe)).stdout, "alive\n", "the detached process runs on after its command");

    const sandbox = (await api(emulator, `${CORE_SANDBOXES}/${name}`)).body;
    const events = await watch(
      emulator,
      `${CORE_SANDBOXES}?fieldSelector=metadata.name%3D${name}&resourceVersion=${sandbox.metadata.resourceVersion}`,
    );
    const mode = (operatingMode: string) =>
      api(emulator, `${CORE_SANDBOXES}/${name}`, {
        method: "PATCH",
        body: { spec: { operatingMode } },
        contentType: "application/merge-patch+json",
      });
    await mode("Suspended");
    await events.until((event) =>
      event.object.status?.conditions?.some((c: Json) => c.type === "Suspended" && c.status === "True"),
    );
    await mode("Running");
    await events.until((event) => readyOf(event.object) === "True");
    events.close();
    assert.equal((await execute(probe)).stdout, "gone\n", "the pod's end ended it");
  });

  test("gRPC to an unknown sandbox, the wrong port or a pod without sandboxd is UNAVAILABLE", async () => {
    const execute = (metadata: grpc.Metadata) =>
      unary(client, "Execute", new ProtoWriter().bytes(1, processConfig(["true"])).finish(), metadata);
    for (const metadata of [routingMetadata("nobody"), routingMetadata(sandbox, 8888), routingMetadata(plain)]) {
      await assert.rejects(execute(metadata), (error: grpc.ServiceError) => error.code === GRPC_UNAVAILABLE);
    }
  });

  test("the REST file API: raw bytes, auto-mkdir, mode, HEAD, directory listing, delete rules, confinement", async () => {
    const files = (path: string, init: RequestInit = {}, port = 8080) =>
      fetch(`${emulator.routerUrl}/v1/files/${path}`, {
        ...init,
        headers: { ...routing(sandbox, port), ...init.headers },
      });
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13]);
    assert.equal((await files("deep/er/data.bin", { method: "PUT", body: bytes })).status, 204);
    const read = await files("deep/er/data.bin");
    assert.equal(read.headers.get("content-type"), "application/octet-stream");
    assert.deepEqual(Buffer.from(await read.arrayBuffer()), bytes);
    const head = await files("deep/er/data.bin", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-length"), "6");
    assert.equal((await files("deep/er/missing", { method: "HEAD" })).status, 404);
    assert.equal((await files("run.sh?mode=0755", { method: "PUT", body: "#!/bin/sh\necho ran\n" })).status, 204);
    assert.equal((await files("bad?mode=999", { method: "PUT", body: "x" })).status, 400);
    const run = await unary(
      client,
      "Execute",
      new ProtoWriter().bytes(1, processConfig(["./run.sh"])).finish(),
      routingMetadata(sandbox),
    );
    assert.equal(run.string(2), "ran\n", "the mode made it executable, and commands see the files");
    const listing = (await (await files("deep")).json()) as { path: string; entries: { name: string; type: string }[] };
    assert.equal(listing.path, "/workspace/deep");
    assert.deepEqual(
      listing.entries.map((entry) => [entry.name, entry.type]),
      [["er", "directory"]],
    );
    const absolute = await files(encodeURIComponent("/workspace/deep/er/data.bin"));
    assert.equal(absolute.status, 200);
    for (const outside of [encodeURIComponent("../etc/passwd"), encodeURIComponent("/etc/passwd")]) {
      const refused = await files(outside);
      assert.equal(refused.status, 403);
      assert.equal(((await refused.json()) as { code: string }).code, "PERMISSION_DENIED");
    }
    const notEmpty = await files("deep", { method: "DELETE" });
    assert.equal(notEmpty.status, 409);
    assert.equal((await files("deep?recursive=true", { method: "DELETE" })).status, 204);
    assert.equal((await files("deep")).status, 404);
    assert.equal((await files("deep", { method: "DELETE" })).status, 404);
    const health = await fetch(`${emulator.routerUrl}/v1/health`, { headers: routing(sandbox, 8080) });
    assert.equal(((await health.json()) as { status: string }).status, "ok");
  });

  test("a PUT is atomic: a concurrent reader sees the old bytes or the new, never a mix", async () => {
    const files = (init: RequestInit = {}) =>
      fetch(`${emulator.routerUrl}/v1/files/atomic.txt`, { ...init, headers: routing(sandbox, 8080) });
    const old = "a".repeat(200_000);
    const fresh = "b".repeat(200_000);
    assert.equal((await files({ method: "PUT", body: old })).status, 204);
    const writing = files({ method: "PUT", body: fresh });
    const reads: string[] = [];
    while (reads.length < 20) {
      reads.push(await (await files()).text());
      if (reads.at(-1) === fresh) break;
    }
    assert.equal((await writing).status, 204);
    for (const text of reads) assert.ok(text === old || text === fresh, `a torn read of ${text.length} bytes`);
  });

  test("router rules: X-Sandbox-ID required and a DNS label, bad port 400, unknown sandbox 502, an unadopted warm pod only by UID", async () => {
    const call = (headers: Record<string, string>) => fetch(`${emulator.routerUrl}/v1/health`, { headers });
    const missing = await call({ "x-sandbox-port": "8080" });
    assert.equal(missing.status, 400);
    assert.deepEqual(await missing.json(), { detail: "X-Sandbox-ID header is required." });
    assert.equal((await call({ "x-sandbox-id": "Bad.Name" })).status, 400);
    assert.equal((await call({ "x-sandbox-id": sandbox, "x-sandbox-port": "70000" })).status, 400);
    const unknown = await call(routing("ghost", 8080));
    assert.equal(unknown.status, 502);
    assert.deepEqual(await unknown.json(), { detail: "Could not connect to the backend sandbox: ghost" });
    assert.deepEqual(await (await fetch(`${emulator.routerUrl}/healthz`)).json(), { status: "ok" });
    const response = await fetch(
      `${emulator.apiServerUrl}/apis/agents.x-k8s.io/v1beta1/namespaces/default/sandboxes?labelSelector=agents.x-k8s.io%2Fwarm-pool-sandbox`,
      { headers: { authorization: `Bearer ${emulator.token}` } },
    );
    const warm = ((await response.json()) as { items: { metadata: { name: string; uid: string } }[] }).items.find(
      (item) => item.metadata.name.startsWith("sandboxd-pool-"),
    )!;
    assert.equal((await call(routing(warm.metadata.name, 8080))).status, 502);
    assert.equal(
      (await call({ ...routing(warm.metadata.name, 8080), "x-sandbox-uid": warm.metadata.uid })).status,
      200,
    );
  });
});

describe("Kubernetes emulator: the router to a pod's own port", { skip }, () => {
  let emulator: KubernetesEmulator;
  before(async () => {
    emulator = await startKubernetesEmulator({ warmPools: [{ name: "pool", template: "sandboxd" }] });
  });
  after(() => emulator.stop());

  test("X-Sandbox-Port other than sandboxd's reaches a server the pod runs; 502 while nothing listens", async (t) => {
    const sandbox = (
      await claimReady(emulator, { metadata: { name: "server" }, spec: { warmPoolRef: { name: "pool" } } })
    ).status.sandbox.name;
    const client = processClient(emulator);
    t.after(() => client.close());
    const page = () => fetch(`${emulator.routerUrl}/hello.txt`, { headers: routing(sandbox, 8765) });
    assert.equal((await page()).status, 502);
    // The server says it listens; then it is read through the router.
    let listening: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      listening = resolve;
    });
    let said = "";
    const { call, done } = startStream(
      client,
      startRequest([
        "node",
        "-e",
        "require('node:http').createServer((q, r) => r.end('served')).listen(8765, '127.0.0.1', () => console.log('listening'))",
      ]),
      routingMetadata(sandbox),
      (event) => {
        if (event.kind === "stdout" || event.kind === "stderr") said += event.data.toString();
        if (said.includes("listening")) listening();
      },
    );
    await Promise.race([ready, done.then(() => assert.fail(`the server ended: ${said}`))]);
    const response = await page();
    assert.equal(response.status, 200);
    assert.equal(await response.text(), "served");
    call.cancel();
    await done.catch(() => {});
  });
});
