// The default emulator backend (a LocalRuntime in a temporary root), and a dispose that leaves nothing behind.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { type SandboxHandle, type SandboxRuntime, SandportError, type SandportErrorCode } from "@sandport/core";
import { waitFor } from "../../assertions/index.js";
import { destroyBackendSandbox, resolveBackend } from "./backend.js";

/** Pids of live processes with `argument` as one whole element of their argv. */
function processesWith(argument: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\u0000");
      const state = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]?.[0];
      if (args.includes(argument) && state !== "Z") found.push(Number(name));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

test("dispose destroys what still runs on the default backend, then removes its root", {
  skip: process.platform === "linux" ? undefined : "reads /proc",
}, async () => {
  const { runtime, dispose } = await resolveBackend();
  const handle = await runtime.launch({});
  const workspace = (handle as { readonly workspaceDirectory?: string }).workspaceDirectory;
  const sleep = `100.${Math.floor(Math.random() * 900_000 + 100_000)}`;
  try {
    assert.ok(runtime.startCommand && workspace, "the default backend is a LocalRuntime");
    await runtime.startCommand(handle, { sessionId: "left-running", argv: ["sleep", sleep] });
    await waitFor(() => processesWith(sleep).length > 0, { what: "the command to start" });
    await dispose();
    await waitFor(() => processesWith(sleep).length === 0, { timeoutMs: 3_000, what: "no command to outlive dispose" });
    assert.equal(existsSync(workspace), false, "the root is still there");
  } finally {
    for (const pid of processesWith(sleep)) process.kill(pid, "SIGKILL");
  }
});

/** A runtime whose destroy answers each of `outcomes` in turn (an error code, or success), counting its calls. */
function destroyAnswering(outcomes: (SandportErrorCode | "ok")[]) {
  let calls = 0;
  const runtime = {
    destroy: async () => {
      const outcome = outcomes[Math.min(calls, outcomes.length - 1)];
      calls++;
      if (outcome !== "ok")
        throw new SandportError({ code: outcome as SandportErrorCode, provider: "local", message: outcome as string });
    },
  } as unknown as SandboxRuntime;
  return { runtime, calls: () => calls };
}

test("destroyBackendSandbox repeats an unverified destroy until it holds, and nothing else", async () => {
  const handle = { id: "sbx-1", provider: "local", labels: {} } as SandboxHandle;
  const flaky = destroyAnswering(["DESTROY_UNVERIFIED", "DESTROY_UNVERIFIED", "ok"]);
  await destroyBackendSandbox(flaky.runtime, handle, 5_000);
  assert.equal(flaky.calls(), 3);

  const refused = destroyAnswering(["FOREIGN_SANDBOX"]);
  await assert.rejects(destroyBackendSandbox(refused.runtime, handle, 5_000), (error) =>
    SandportError.hasCode(error, "FOREIGN_SANDBOX"),
  );
  assert.equal(refused.calls(), 1, "another error is the answer at once");

  const stuck = destroyAnswering(["DESTROY_UNVERIFIED"]);
  const started = Date.now();
  await assert.rejects(destroyBackendSandbox(stuck.runtime, handle, 200), (error) =>
    SandportError.hasCode(error, "DESTROY_UNVERIFIED"),
  );
  assert.ok(Date.now() - started >= 200 && stuck.calls() > 1, "repeated until the time given ran out, then rejected");
});
