// Exec over real fetch against the emulator: the run budget is kept here
// (exec takes no timeout) and the command is swept when it runs out; the
// output cap holds, and a cut by the service itself (512 KB on Agent37)
// shows as truncation; cwd, env and stdin travel inside the one command.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "exec-tests" }, { outputCapBytes: 4_000 });
const handle = await runtime.launch();

describe("the run budget", () => {
  test("a command past its timeoutMs is timedOut, and its processes are swept", async () => {
    const started = performance.now();
    const result = await runtime.exec(handle, { shell: "sleep 31.25; echo late", timeoutMs: 800 });
    assert.equal(result.timedOut, true);
    assert.equal(result.exitCode, null);
    assert.ok(performance.now() - started < 20_000, "the call ended at its budget, not the command's end");
    // Aborting the request does not stop a command on Agent37: the kill's sweep does.
    await waitFor(
      async () => (await runtime.exec(handle, { shell: "pgrep -f 'sleep 31[.]25' || echo gone" })).stdout === "gone\n",
      { timeoutMs: 10_000, what: "the timed-out command's sleep swept" },
    );
  });

  test("timeoutMs past Agent37's 280 s exec cap is refused before any request", async () => {
    emulator.resetRequests();
    await expectCode(runtime.exec(handle, { argv: ["true"], timeoutMs: 280_001 }), "INVALID_REQUEST");
    assert.equal(emulator.countRequests(), 0);
  });
});

describe("the output cap", () => {
  test("output past maxOutputBytes is cut and truncated", async () => {
    const result = await runtime.exec(handle, { shell: "head -c 3000 /dev/zero | tr '\\0' a", maxOutputBytes: 1000 });
    assert.equal(result.truncated, true);
    assert.ok(result.stdout.length <= 1000, `${result.stdout.length} bytes`);
  });

  test("a cut by the service (its cap below the request's here) shows as truncation", async () => {
    // The emulator cuts each stream at 4 000 bytes: 4 500 fit the request's cap, not the service's.
    const result = await runtime.exec(handle, { shell: "head -c 4500 /dev/zero | tr '\\0' a", maxOutputBytes: 5_000 });
    assert.equal(result.stdout.length, 4_000);
    assert.equal(result.truncated, true);
    assert.equal(result.exitCode, 0);
  });
});

describe("cwd, env and stdin inside the command", () => {
  test("they reach the command; exec's request carries only the command", async () => {
    await runtime.writeFiles(handle, [{ path: "sub/x.txt", content: "x" }]);
    const result = await runtime.exec(handle, {
      shell: 'printf "%s|%s|" "$(cat x.txt)" "$GREETING"; cat',
      cwd: "sub",
      env: { GREETING: "it's here" },
      stdin: "from stdin",
    });
    assert.equal(result.stdout, "x|it's here|from stdin");
    const exec = emulator.requests.filter((request) => request.route === "POST /v1/instances/:id/exec").at(-1);
    assert.ok(exec);
    assert.equal(exec.headers.authorization, `Bearer ${emulator.apiKey}`);
  });
});
