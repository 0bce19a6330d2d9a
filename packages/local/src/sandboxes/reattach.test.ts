// Sandboxes and async commands live on disk: other runtime instances and other processes find them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import { ENTRY, runNodeChild, temporaryDirectory, waitFor } from "../runtime.fixture.js";

const root = temporaryDirectory("reattach");
after(() => root.remove());
// Commands here only append to files; `none` keeps the test independent of bubblewrap
// (the conformance suite covers async exec under both modes).
const options: LocalRuntimeOptions = { root: root.path, isolation: "none", owner: "reattach-tests" };
const runtime = new LocalRuntime(options);

const childPrelude = `
  import { LocalRuntime } from ${JSON.stringify(ENTRY)};
  const runtime = new LocalRuntime(${JSON.stringify(options)});
`;

test("a fresh process reattaches by id, reads the files and runs commands", async () => {
  const handle = await runtime.launch({ labels: { team: "blue" }, env: { GREETING: "hello" } });
  await runtime.writeFiles(handle, [{ path: "note.txt", content: "from the parent" }]);
  const child = await runNodeChild(`${childPrelude}
    const handle = await runtime.getById(${JSON.stringify(handle.id)});
    const result = await runtime.exec(handle, { shell: 'cat note.txt; echo " $GREETING"' });
    const found = await runtime.findByLabels({ team: "blue" });
    console.log(JSON.stringify({ handle, stdout: result.stdout, found: found.map((h) => h.id) }));
  `);
  assert.equal(child.code, 0, child.stderr);
  const output = JSON.parse(child.stdout);
  assert.deepEqual(output.handle, JSON.parse(JSON.stringify(handle)), "the rebuilt handle equals the original");
  assert.equal(output.stdout, "from the parent hello\n", "the launch env applies from the other process too");
  assert.deepEqual(output.found, [handle.id]);
  await runtime.destroy(handle);
});

test("a command started by a process that exited keeps running; its session id stays taken", async () => {
  const handle = await runtime.launch();
  const request = { shell: "echo run >> runs.log; sleep 0.3; echo finished", sessionId: "job-1" };
  const child = await runNodeChild(`${childPrelude}
    const handle = await runtime.getById(${JSON.stringify(handle.id)});
    console.log(JSON.stringify(await runtime.startCommand(handle, ${JSON.stringify(request)})));
  `);
  assert.equal(child.code, 0, child.stderr);
  const ref = JSON.parse(child.stdout);
  const fresh = new LocalRuntime(options);
  assert.ok(await waitFor(async () => (await fresh.commandStatus(handle, ref)).state === "exited", 10_000));
  assert.deepEqual(await fresh.commandStatus(handle, ref), { state: "exited", exitCode: 0 });
  const logs = await fresh.commandLogs(handle, ref);
  assert.equal(logs.stdout, "finished\n");
  assert.equal(logs.isolation, "none");

  // Starting the same session again, from this process and a new instance, returns the same command.
  assert.deepEqual(await fresh.startCommand(handle, request), ref);
  assert.deepEqual(await runtime.startCommand(handle, request), ref);
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(readFileSync(join(handle.workspaceDirectory, "runs.log"), "utf8"), "run\n", "it ran exactly once");
  await runtime.destroy(handle);
});

test("concurrent starts of one session id, from three instances, run the command once", async () => {
  const handle = await runtime.launch();
  const request = { shell: "echo run >> runs.log", sessionId: "race" };
  const refs = await Promise.all([
    runtime.startCommand(handle, request),
    new LocalRuntime(options).startCommand(handle, request),
    new LocalRuntime(options).startCommand(handle, request),
  ]);
  assert.deepEqual(refs[1], refs[0]);
  assert.deepEqual(refs[2], refs[0]);
  const ref = refs[0];
  assert.ok(await waitFor(async () => (await runtime.commandStatus(handle, ref)).state === "exited", 10_000));
  assert.equal(readFileSync(join(handle.workspaceDirectory, "runs.log"), "utf8"), "run\n");
  await runtime.destroy(handle);
});

test("a lifetimeMs past its end reclaims the sandbox on the next lookup", async () => {
  const handle = await runtime.launch({ lifetimeMs: 1, labels: { short: "lived" } });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(await runtime.findByLabels({ short: "lived" }), []);
  assert.equal(await runtime.getById(handle.id), undefined);
});
