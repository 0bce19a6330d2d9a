// The default emulator backend (a LocalRuntime in a temporary root), and a dispose that leaves nothing behind.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { waitFor } from "../../assertions/index.js";
import { resolveBackend } from "./backend.js";

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
