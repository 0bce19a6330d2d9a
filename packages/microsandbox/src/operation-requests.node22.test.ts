// The requests of operations on a handle, counted by the emulator through the
// real SDK. The runtime keeps the SDK sandbox object a launch (or its first
// attach) got, so an operation costs only what the SDK itself sends for one
// agent session on the cloud: its own lookup by name, then the agent
// WebSocket. The kept object hides nothing: a sandbox destroyed elsewhere is
// NOT_FOUND at the next operation, and nothing is kept past a destroy.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "operation-requests" });

const LOOKUP = "GET /v1/sandboxes/by-name/:name";
const AGENT = "GET /v1/sandboxes/:id/agent";
/** One agent session as the SDK opens it on the cloud: its lookup by name, then the WebSocket. */
const SESSION = [LOOKUP, AGENT];

/** Agent operations (a command, a file call) the emulator received, across every {@link taken}. */
let agentOperations = 0;

/** The routes requested since the last call, emptying the log. */
function taken(): string[] {
  const routes = emulator.requests.map((request) => request.route);
  agentOperations += emulator.agentOperations.length;
  emulator.resetRequests();
  return routes;
}

const FILES = Array.from({ length: 20 }, (_, index) => ({ path: `src/f${index}.txt`, content: `${index}` }));

test("operations on a launched handle: each one agent session (the SDK's lookup, its WebSocket), nothing of the runtime's", async () => {
  emulator.resetRequests();
  const handle = await runtime.launch();
  assert.deepEqual(taken(), ["POST /v1/sandboxes"]);
  agentOperations = 0;
  await runtime.writeFiles(handle, FILES);
  assert.deepEqual(taken(), SESSION, "20 files: one archive command");
  for (const argv of [
    ["ls", "src"],
    ["cat", "src/f0.txt"],
    ["sh", "-c", "exit 3"],
  ]) {
    await runtime.exec(handle, { argv });
    assert.deepEqual(taken(), SESSION, argv.join(" "));
  }
  for (const path of ["src/f0.txt", "src/f19.txt"]) {
    await runtime.readFile(handle, path);
    assert.deepEqual(taken(), SESSION, `read ${path}: one command`);
  }
  assert.equal(agentOperations, 6, "one agent operation per session");
  await runtime.destroy(handle);
  assert.deepEqual(taken(), ["DELETE /v1/sandboxes/by-name/:name", LOOKUP], "the delete, then the look that proves it");
});

test("a handle this runtime did not launch pays one lookup (its ownership check) once, then the same", async () => {
  const handle = await runtime.launch();
  const other = runtimeWith({});
  emulator.resetRequests();
  await other.exec(handle, { argv: ["true"] });
  assert.deepEqual(taken(), [LOOKUP, ...SESSION], "the ownership check's record is what it attaches with");
  await other.exec(handle, { argv: ["true"] });
  assert.deepEqual(taken(), SESSION);
  const found = await runtimeWith({}).getById(handle.id);
  assert.ok(found);
  assert.deepEqual(taken(), [LOOKUP]);
  await runtime.destroy(handle);
});

test("the kept SDK object hides nothing: destroyed elsewhere is NOT_FOUND at once; destroyed here, nothing is kept", async () => {
  const handle = await runtime.launch();
  await runtime.exec(handle, { argv: ["true"] });
  await runtimeWith({}).destroy(handle);
  emulator.resetRequests();
  const gone = await expectCode(
    runtime.exec(handle, { argv: ["true"] }),
    "NOT_FOUND",
    "exec after a destroy elsewhere",
  );
  assert.equal(gone.details.sandboxId, handle.id);
  assert.deepEqual(taken(), [LOOKUP], "the SDK's own lookup found it gone: no WebSocket");
  await expectCode(runtime.readFile(handle, "x.txt"), "NOT_FOUND");
  await runtime.destroy(handle);
  taken();

  const second = await runtime.launch();
  await runtime.exec(second, { argv: ["true"] });
  await runtime.destroy(second);
  emulator.resetRequests();
  await expectCode(runtime.exec(second, { argv: ["true"] }), "NOT_FOUND", "exec after this runtime's destroy");
  assert.deepEqual(taken(), [LOOKUP], "one lookup, no WebSocket");
});
