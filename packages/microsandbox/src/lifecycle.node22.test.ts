// launch, stop/start, reattach and destroy through the real SDK: the requests
// each costs, files kept across a stop, the launch environment applied to a
// sandbox another runtime instance reattached, and destroy verified by absence.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "lifecycle", idleTimeoutMs: 120_000 });

const routes = () => emulator.requests.map((request) => `${request.route} ${request.status}`);

test("launch: one create with everything explicit, the workspace as its workdir; no other request", async () => {
  emulator.resetRequests();
  const handle = await runtime.launch({ env: { GREETING: "hi" }, labels: { job: "7" }, lifetimeMs: 90_000 });
  assert.deepEqual(routes(), ["POST /v1/sandboxes 200"]);
  assert.equal(emulator.requests[0]?.path, "/v1/sandboxes?start=true&wait_for=running&wait_timeout=90");
  const record = (await fetch(`${emulator.apiUrl}/v1/sandboxes/by-name/${handle.id}`, {
    headers: { authorization: `Bearer ${emulator.apiKey}` },
  }).then((response) => response.json())) as { spec: Record<string, unknown> };
  assert.deepEqual(record.spec.lifecycle, { ephemeral: false, max_duration_secs: 90, idle_timeout_secs: 120 });
  assert.deepEqual(record.spec.resources, { vcpus: 1, memory_mib: 512 });
  // What was granted, read back from the record (the launch's own handle cannot tell without another request).
  assert.deepEqual((await runtime.getById(handle.id))?.resources, { cpus: 1, memoryMiB: 512 });
  assert.equal(handle.resources, undefined);
  assert.equal(record.spec.image, "debian:bookworm-slim");
  assert.equal((record.spec.runtime as { workdir: string }).workdir, "/workspace");
  assert.deepEqual(record.spec.env, [{ key: "GREETING", value: "hi" }]);
  assert.equal((await runtime.exec(handle, { argv: ["pwd"] })).stdout.trim().endsWith("/workspace"), true);
  await runtime.destroy(handle);
});

test("a fresh sandbox's workspace is there at once: listed empty, and a command's cwd", async () => {
  const handle = await runtime.launch();
  assert.deepEqual(await runtime.listDir(handle, ""), []);
  const ran = await runtime.exec(handle, { shell: "pwd && test -w ." });
  assert.equal(ran.exitCode, 0, ran.stderr);
  assert.equal(ran.stdout.trim().endsWith("/workspace"), true);
  await runtime.destroy(handle);
});

test("stop keeps files and ends commands; start runs it again; a second instance reattaches with the launch env", async () => {
  const handle = await runtime.launch({ env: { GREETING: "hi" } });
  await runtime.writeFiles(handle, [{ path: "kept.txt", content: "kept" }]);
  const running = runtime.exec(handle, { shell: "touch running.txt; sleep 30", timeoutMs: 60_000 });
  const started = () =>
    runtime.readFile(handle, "running.txt").then(
      () => true,
      () => false,
    );
  await waitFor(started, { what: "the command to run" });
  await runtime.stop(handle);
  assert.equal((await running).exitCode, 137, "stopping the sandbox ended the command (SIGKILL)");
  const stopped = await expectCode(runtime.exec(handle, { argv: ["true"] }), "INVALID_REQUEST", "exec when stopped");
  assert.match(stopped.message, /is not running/, "a stopped sandbox is not started behind the caller's back");
  await runtime.start(handle);
  await runtime.start(handle);
  const reopened = runtimeWith({});
  const found = await reopened.getById(handle.id);
  assert.ok(found);
  const result = await reopened.exec(found, { shell: 'cat kept.txt; printf " $GREETING"' });
  assert.equal(result.stdout, "kept hi");
  emulator.resetRequests();
  await reopened.destroy(found);
  assert.deepEqual(routes(), ["DELETE /v1/sandboxes/by-name/:name 200", "GET /v1/sandboxes/by-name/:name 404"]);
  await runtime.destroy(handle);
  await expectCode(runtime.readFile(handle, "kept.txt"), "NOT_FOUND");
  await expectCode(runtime.stop(handle), "NOT_FOUND");
  await expectCode(runtime.start(handle), "NOT_FOUND");
});

test("hostile ids never reach a URL, and invalid launches send nothing", async () => {
  emulator.resetRequests();
  for (const id of ["..", "/etc", "a/b", "", "%2e%2e", "-flag", "x".repeat(129)]) {
    await expectCode(runtime.getById(id), "INVALID_REQUEST", JSON.stringify(id));
    await expectCode(runtime.destroy({ id, provider: "microsandbox", labels: {} }), "INVALID_REQUEST");
  }
  await expectCode(runtime.destroy({ id: "sandport-x", provider: "e2b", labels: {} } as never), "INVALID_REQUEST");
  await expectCode(runtime.launch({ env: { "BAD NAME": "x" } }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ lifetimeMs: -1 }), "INVALID_REQUEST");
  await expectCode(runtime.launch({ resources: { cpus: 1.5 } }), "UNSUPPORTED");
  // The cloud counts vCPUs in a u8 and memory in a u32 of MiB (the SDK throws a bare Error past them).
  await expectCode(runtime.launch({ resources: { cpus: 256 } }), "UNSUPPORTED");
  await expectCode(runtime.launch({ resources: { memoryMiB: 2 ** 32 } }), "UNSUPPORTED");
  assert.deepEqual(emulator.requests, []);
});
