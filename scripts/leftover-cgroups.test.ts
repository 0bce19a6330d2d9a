// The leftover-cgroup check of scripts/run-tests.mjs sees the cgroups a real sandbox makes, traces
// them to the process that ran its commands, and sees them go when the sandbox is destroyed.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout } from "node:timers/promises";
import { LocalRuntime } from "sandport/local";
// @ts-expect-error: a plain ES module script without type declarations.
import { leafPids, sandportCgroups, watchDescendants } from "./leftover-cgroups.mjs";

test("a sandbox's cgroups are found under our own, traced to our pid, and gone after destroy", async (context) => {
  const root = mkdtempSync(join(tmpdir(), "sandport-leftover-"));
  context.after(() => rmSync(root, { recursive: true, force: true }));
  const runtime = new LocalRuntime({ root, isolation: "none" });
  const handle = await runtime.launch({});
  try {
    // A command still running holds its leaf (destroy kills it); a finished one's leaf may be kept or removed.
    await runtime.spawn(handle, { argv: ["sleep", "30"] });
    const mine = ([...sandportCgroups()] as string[]).filter((path) => path.endsWith(`/sandport-${handle.id}`));
    if (mine.length === 0) return context.skip("the runtime makes no cgroups here (no writable hierarchy)");
    // A command without limits is moved into its leaf in the background, after spawn resolved: wait for it.
    const traced = () => mine.some((path) => leafPids(path).includes(process.pid));
    for (let round = 0; round < 1_000 && !traced(); round++) await setTimeout(10);
    assert.ok(traced(), `a leaf names this process: ${mine.join(", ")}`);
  } finally {
    await runtime.destroy(handle);
  }
  assert.deepEqual(
    ([...sandportCgroups()] as string[]).filter((path) => path.endsWith(`/sandport-${handle.id}`)),
    [],
  );
});

test("a cgroup that appears is noted with the test files running at that moment", async (context) => {
  const root = mkdtempSync(join(tmpdir(), "sandport-leftover-"));
  context.after(() => rmSync(root, { recursive: true, force: true }));
  // A stand-in for a test file's process: a child of this one whose arguments name a test file.
  const child = spawn("sh", ["-c", "sleep 30", "stand-in.test.ts"], { stdio: "ignore" });
  context.after(() => child.kill("SIGKILL"));
  const watcher = watchDescendants(process.pid, 60_000);
  const runtime = new LocalRuntime({ root, isolation: "none" });
  const handle = await runtime.launch({});
  try {
    watcher.stop();
    const mine = ([...sandportCgroups()] as string[]).filter((path) => path.endsWith(`/sandport-${handle.id}`));
    if (mine.length === 0) return context.skip("the runtime makes no cgroups here (no writable hierarchy)");
    for (const path of mine) assert.ok(watcher.origins.get(path)?.has("stand-in.test.ts"), path);
  } finally {
    await runtime.destroy(handle);
  }
});
