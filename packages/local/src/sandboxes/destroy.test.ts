// Destroy finishes or says so: trees deeper than PATH_MAX, directories a command locked, a removal
// that fails (reported, findable, finished by a later destroy), and under "none" every marked process.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import {
  bwrapSkipReason,
  ENTRY,
  killProcessesWithArgument,
  processesWithArgument,
  runNodeChild,
  temporaryDirectory,
  uniqueSleep,
  waitFor,
} from "../runtime.fixture.js";

const skipNamespaces = await bwrapSkipReason();
const root = temporaryDirectory("destroy");
after(() => root.remove());

function runtime(options: LocalRuntimeOptions = {}): LocalRuntime {
  return new LocalRuntime({ root: root.path, killGraceMs: 100, ...options });
}

/** True when nothing of sandbox `id` is left under the root (no directory, no removal leftovers). */
function goneFromDisk(id: string): boolean {
  return !readdirSync(root.path).some((name) => name.includes(id));
}

for (const isolation of ["namespaces", "none"] as const) {
  describe(`${isolation}: destroy removes what commands made`, {
    skip: isolation === "namespaces" ? skipNamespaces : undefined,
  }, () => {
    test("a directory chain deeper than PATH_MAX, made by a command", async () => {
      const rt = runtime({ isolation });
      const handle = await rt.launch();
      const made = await rt.exec(handle, {
        argv: ["perl", "-e", 'for (1..3000) { mkdir "d" or die "mkdir: $!"; chdir "d" or die "chdir: $!" } print "ok"'],
      });
      assert.equal(made.stdout, "ok", made.stderr);
      await rt.destroy(handle);
      assert.ok(goneFromDisk(handle.id));
      assert.equal(await rt.getById(handle.id), undefined);
    });

    test("a command another process runs in the sandbox is stopped first (found by its marker)", async () => {
      const sleep = uniqueSleep();
      const child = runNodeChild(`
        import { LocalRuntime } from ${JSON.stringify(ENTRY)};
        const runtime = new LocalRuntime({ root: ${JSON.stringify(root.path)}, isolation: "${isolation}" });
        const handle = await runtime.launch();
        console.log(handle.id);
        try {
          await runtime.exec(handle, { argv: ["sleep", "${sleep}"] });
        } finally {
          console.log("exec settled");
        }
      `);
      let output = "";
      child.child.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      try {
        assert.ok(await waitFor(() => processesWithArgument(sleep).length > 0, 10_000), "the command runs");
        const handle = await runtime({ isolation }).getById(output.trim());
        assert.ok(handle, "the sandbox is found from this process");
        await runtime({ isolation }).destroy(handle);
        assert.deepEqual(processesWithArgument(sleep), [], "destroy resolved with the other process's command alive");
        assert.ok(goneFromDisk(handle.id));
        await child;
        assert.match(output, /exec settled/);
      } finally {
        killProcessesWithArgument(sleep);
        child.child.kill("SIGKILL");
      }
    });

    test("directories a command made unreadable and unwritable", async () => {
      const rt = runtime({ isolation });
      const handle = await rt.launch();
      const script =
        "mkdir -p locked/inner shut && touch locked/inner/f shut/g && chmod 000 locked/inner locked && chmod 500 shut";
      const made = await rt.exec(handle, { shell: script });
      assert.equal(made.exitCode, 0, made.stderr);
      await rt.destroy(handle);
      assert.ok(goneFromDisk(handle.id));
    });
  });
}

describe("destroy of files the runtime wrote", () => {
  test("a chain written by writeFiles, deeper than PATH_MAX with the root's path, reads back and is destroyed", async () => {
    const rt = runtime({ isolation: "none" });
    const handle = await rt.launch();
    const path = `${"ab/".repeat(1360)}f`;
    assert.ok(join(handle.workspaceDirectory, path).length > 4096, "longer than PATH_MAX as a host path");
    await rt.writeFiles(handle, [{ path, content: "deep" }]);
    assert.equal(new TextDecoder().decode(await rt.readFile(handle, path)), "deep");
    await rt.destroy(handle);
    assert.ok(goneFromDisk(handle.id));
  });
});

const chattr = spawnSync("chattr", ["--help"]).error === undefined && process.getuid?.() === 0;
describe("a removal that fails", {
  skip: chattr ? undefined : "needs root and chattr to make a file undeletable",
}, () => {
  test("is DESTROY_UNVERIFIED, leaves the sandbox findable, and a later destroy finishes", async (context) => {
    // An unbounded workspace: a bounded one (the default disk bound, as root) goes with its image, whatever is in it.
    const rt = runtime({ isolation: "none", defaultResources: false });
    const handle = await rt.launch();
    await rt.writeFiles(handle, [
      { path: "keep/stuck.txt", content: "x" },
      { path: "other.txt", content: "y" },
    ]);
    const stuck = join(handle.workspaceDirectory, "keep/stuck.txt");
    const immutable = spawnSync("chattr", ["+i", stuck]);
    if (immutable.status !== 0) return context.skip(`chattr +i failed here: ${immutable.stderr.toString().trim()}`);
    try {
      await assert.rejects(rt.destroy(handle), (error) => {
        assert.ok(SandportError.hasCode(error, "DESTROY_UNVERIFIED"), String(error));
        assert.match(error.message, /destroy it again/);
        return true;
      });
      assert.equal((await rt.getById(handle.id))?.id, handle.id, "still findable");
      assert.deepEqual(
        (await rt.findByLabels({})).map((found) => found.id).filter((id) => id === handle.id),
        [handle.id],
      );
    } finally {
      // The failed removal may have moved the file's directory: find it wherever it is now.
      spawnSync("find", [join(root.path, handle.id), "-name", "stuck.txt", "-exec", "chattr", "-i", "{}", "+"]);
    }
    await rt.destroy(handle);
    assert.ok(goneFromDisk(handle.id));
    assert.equal(existsSync(join(root.path, handle.id)), false);
  });
});

describe("a removal that fails at the metadata", {
  skip: chattr ? undefined : "needs root and chattr to make a file undeletable",
}, () => {
  test("puts the sandbox back where another instance finds it and finishes the job", async (context) => {
    const handle = await runtime({ isolation: "none" }).launch();
    const record = join(root.path, handle.id, "sandbox.json");
    const immutable = spawnSync("chattr", ["+i", record]);
    if (immutable.status !== 0) return context.skip(`chattr +i failed here: ${immutable.stderr.toString().trim()}`);
    try {
      await assert.rejects(runtime({ isolation: "none" }).destroy(handle), (error) =>
        SandportError.hasCode(error, "DESTROY_UNVERIFIED"),
      );
      assert.equal((await runtime({ isolation: "none" }).getById(handle.id))?.id, handle.id, "findable again");
    } finally {
      spawnSync("chattr", ["-i", record]);
    }
    await runtime({ isolation: "none" }).destroy(handle);
    assert.ok(goneFromDisk(handle.id));
  });
});

/**
 * A command that starts `count` processes running `sleep <sleep>`, each of which ignores SIGTERM,
 * leaves the command's process group (`setsid`) and, where it may (root), every cgroup it is in,
 * moving to each hierarchy's root: only the marker in its environment still ties it to the sandbox.
 */
function escapees(sleep: string, count: number): string {
  const leave = "for f in /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/*/cgroup.procs; do echo $$ > $f; done 2>/dev/null";
  return `for i in $(seq ${count}); do setsid sh -c 'trap "" TERM; ${leave}; exec sleep ${sleep}' & done`;
}

describe("none: no marked process outlives destroy", () => {
  test("20 async commands that leave a child outside their group and cgroups: none survives destroy", async () => {
    const rt = runtime({ isolation: "none" });
    const sleeps: string[] = [];
    try {
      for (let run = 0; run < 20; run++) {
        const sleep = uniqueSleep();
        sleeps.push(sleep);
        const handle = await rt.launch();
        await rt.startCommand(handle, {
          sessionId: `run-${run}`,
          shell: `trap "" TERM; ${escapees(sleep, 1)}; sleep 30`,
        });
        assert.ok(await waitFor(() => processesWithArgument(sleep).length > 0, 5_000), "the setsid child started");
        await rt.destroy(handle);
        assert.deepEqual(processesWithArgument(sleep), [], `run ${run}: the setsid child outlived destroy`);
      }
    } finally {
      for (const sleep of sleeps) killProcessesWithArgument(sleep);
    }
  });

  test("after the runtime process is killed mid-exec, a fresh runtime's destroy kills every marked process", async () => {
    const sleep = uniqueSleep();
    const script = `
      import { LocalRuntime } from ${JSON.stringify(ENTRY)};
      const runtime = new LocalRuntime({ root: ${JSON.stringify(root.path)}, isolation: "none" });
      const handle = await runtime.launch();
      console.log(handle.id);
      await runtime.exec(handle, { shell: ${JSON.stringify(`${escapees(sleep, 30)}; wait`)} });
    `;
    const child = runNodeChild(script);
    try {
      let id = "";
      child.child.stdout?.on("data", (chunk: Buffer) => {
        id += chunk.toString();
      });
      assert.ok(await waitFor(() => processesWithArgument(sleep).length === 30, 10_000), "30 escapees run");
      child.child.kill("SIGKILL");
      await child;
      const fresh = runtime({ isolation: "none" });
      const handle = await fresh.getById(id.trim());
      assert.ok(handle, "the sandbox is found again");
      assert.equal(processesWithArgument(sleep).length, 30, "they outlived their runtime process");
      await fresh.destroy(handle);
      assert.deepEqual(processesWithArgument(sleep), [], "destroy resolved with marked processes alive");
    } finally {
      killProcessesWithArgument(sleep);
    }
  });
});
