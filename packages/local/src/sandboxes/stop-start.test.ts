// stop freezes every process of a sandbox (cgroup v2 freezer), start thaws them; commands are refused meanwhile.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { freezerSupport } from "../cgroups/freezer.js";
import { LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import { runsAsRoot } from "../options.js";
import {
  bwrapSkipReason,
  processesWithArgument,
  temporaryDirectory,
  uniqueSleep,
  waitFor,
} from "../runtime.fixture.js";

const root = temporaryDirectory("stop-start");
after(() => root.remove());

const support = freezerSupport();
const noFreezer = support.ok ? undefined : `this process cannot freeze sandboxes: ${support.reason}`;

/** A loop counting in its shell's memory, writing each value to `file`: a resumed loop goes on from its last value. */
const counter = (file: string) => `n=0; while :; do n=$((n+1)); echo $n > ${file}; sleep 0.01; done`;

/** The number in a counter file, or 0 before its first write (or while one is half-written). */
function readCounter(path: string): number {
  try {
    return Number(readFileSync(path, "utf8").trim()) || 0;
  } catch {
    return 0;
  }
}

/** Waits until the counter in `path` passes `above`, or fails naming `what`. */
async function counterPasses(path: string, above: number, what: string): Promise<number> {
  assert.ok(await waitFor(() => readCounter(path) > above, 10_000), `${what}: the counter never passed ${above}`);
  return readCounter(path);
}

/**
 * A host loop outside any sandbox counting at the same pace: waiting for it to
 * count `ticks` more is how long a frozen loop is watched not counting (a
 * condition, not a fixed delay).
 */
async function whileReferenceCounts(directory: string, ticks: number): Promise<void> {
  const file = join(directory, `reference-${process.pid}-${Math.random()}`);
  const loop = spawn("/bin/sh", ["-c", counter(file)], { stdio: "ignore" });
  try {
    await counterPasses(file, ticks, "the reference loop on the host");
  } finally {
    loop.kill("SIGKILL");
  }
}

function isStoppedRefusal(error: unknown): boolean {
  return SandportError.hasCode(error, "INVALID_REQUEST") && error.details?.state === "stopped";
}

const variants = [
  { isolation: "namespaces", namespaceScope: "command" },
  { isolation: "namespaces", namespaceScope: "sandbox" },
  { isolation: "none", namespaceScope: "command" },
] as const;

for (const { isolation, namespaceScope } of variants) {
  describe(`stop and start under isolation ${isolation}, namespaceScope ${namespaceScope}`, async () => {
    const noBwrap =
      isolation === "namespaces"
        ? ((await bwrapSkipReason()) ??
          (namespaceScope === "sandbox" && !runsAsRoot() ? "shared namespaces need a root runtime" : undefined))
        : undefined;
    const options: LocalRuntimeOptions = {
      root: root.path,
      isolation,
      ...(noBwrap === undefined && namespaceScope === "sandbox" ? { namespaceScope } : {}),
      owner: `stop-start-${isolation}-${namespaceScope}`,
    };
    const runtime = new LocalRuntime(options);

    test("declares lifecycle and stopKeeps as the host allows", () => {
      assert.equal(runtime.capabilities.lifecycle, support.ok ? true : "unsupported");
      assert.equal(runtime.capabilities.modes.stopKeeps, support.ok ? "filesystem+memory" : "unsupported");
      assert.equal(typeof runtime.stop, support.ok ? "function" : "undefined", "stop exists exactly when declared");
      assert.equal(typeof runtime.start, support.ok ? "function" : "undefined", "start exists exactly when declared");
    });

    test("a stopped sandbox's async command stops counting, commands are refused, files work; start resumes it from memory", {
      skip: noBwrap ?? noFreezer,
    }, async () => {
      const handle = await runtime.launch();
      try {
        const count = join(handle.workspaceDirectory, "count.txt");
        const marker = uniqueSleep();
        const ref = await runtime.startCommand(handle, {
          shell: `sleep ${marker} & ${counter("count.txt")}`,
          sessionId: "counter",
        });
        await counterPasses(count, 2, "before stop");
        await runtime.stop!(handle);
        const frozenAt = readCounter(count);
        await whileReferenceCounts(root.path, 20);
        assert.equal(readCounter(count), frozenAt, "the loop counted while stopped");
        assert.equal(processesWithArgument(marker).length, 1, "its background sleep is still there");

        for (const [what, call] of [
          ["exec", () => runtime.exec(handle, { argv: ["true"] })],
          [
            "execStream",
            async () => {
              for await (const _event of runtime.execStream(handle, { argv: ["true"] })) {
                // Refused on the first iteration.
              }
            },
          ],
          ["spawn", () => runtime.spawn(handle, { argv: ["true"] })],
          ["startCommand", () => runtime.startCommand(handle, { argv: ["true"], sessionId: "other" })],
          ["openTerminal", () => runtime.openTerminal(handle, { argv: ["true"] })],
        ] as const) {
          await assert.rejects(call, isStoppedRefusal, `${what} in a stopped sandbox`);
        }
        // A new instance over the same root sees the stopped state on disk.
        const other = new LocalRuntime(options);
        await assert.rejects(other.exec(handle, { argv: ["true"] }), isStoppedRefusal, "exec from a new instance");

        await runtime.writeFiles(handle, [{ path: "while-stopped.txt", content: "written" }]);
        assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "while-stopped.txt")), "written");
        assert.equal((await runtime.commandStatus(handle, ref)).state, "running", "its status is still answered");
        await runtime.stop!(handle); // stopping a stopped sandbox is a no-op

        await other.start!(handle);
        // The first value that differs: a loop started afresh would write 1, 2, ... (frozenAt is at least 3).
        assert.ok(await waitFor(() => ![0, frozenAt].includes(readCounter(count)), 10_000), "it never resumed");
        const resumed = readCounter(count);
        assert.ok(resumed > frozenAt, `the loop went on from ${frozenAt} (memory kept), read ${resumed}`);
        const result = await runtime.exec(handle, { shell: "cat while-stopped.txt" });
        assert.equal(result.stdout, "written", "commands run again after start");
        await runtime.start!(handle); // starting a running sandbox is a no-op
      } finally {
        await runtime.destroy(handle);
      }
    });

    test("destroy of a stopped sandbox kills its frozen processes", { skip: noBwrap ?? noFreezer }, async () => {
      const handle = await runtime.launch();
      const marker = uniqueSleep();
      const spawned = await runtime.spawn(handle, { shell: `sleep ${marker} & wait` });
      assert.ok(await waitFor(() => processesWithArgument(marker).length === 1, 10_000), "the sleep runs");
      await runtime.stop!(handle);
      await new LocalRuntime(options).destroy(handle);
      assert.deepEqual(processesWithArgument(marker), [], "a frozen process survived destroy");
      assert.equal(await runtime.getById(handle.id), undefined, "the sandbox is gone");
      assert.equal((await spawned.result).exitCode, null, "the spawned command was killed");
    });
  });
}

test("a runtime with cgroups disabled has no stop or start and says so", () => {
  const runtime = new LocalRuntime({ root: root.path, isolation: "none", cgroups: "disabled" });
  assert.equal(runtime.capabilities.lifecycle, "unsupported");
  assert.equal(runtime.capabilities.modes.stopKeeps, "unsupported");
  assert.equal(runtime.stop, undefined);
  assert.equal(runtime.start, undefined);
});

test("a sandbox launched without a freezer refuses stop with UNSUPPORTED", { skip: noFreezer }, async () => {
  const plain = new LocalRuntime({ root: root.path, isolation: "none", cgroups: "disabled", owner: "no-freezer" });
  const freezing = new LocalRuntime({ root: root.path, isolation: "none", owner: "no-freezer" });
  const handle = await plain.launch();
  try {
    await assert.rejects(freezing.stop!(handle), (error: unknown) => SandportError.hasCode(error, "UNSUPPORTED"));
    assert.equal((await freezing.exec(handle, { argv: ["true"] })).exitCode, 0, "it was not marked stopped");
  } finally {
    await plain.destroy(handle);
  }
});
