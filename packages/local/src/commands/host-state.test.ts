// What a sandboxed command can reach of the host beyond its workspace: host-global kernel settings,
// the user it runs as, and descriptors the embedding process inherited. Each claim has a control run
// showing the check would catch the opposite.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, closeSync, existsSync, openSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { DEFAULT_SANDBOX_UIDS, LocalRuntime, type LocalRuntimeOptions } from "../index.js";
import { bwrapSkipReason, ENTRY, runNodeChild, temporaryDirectory } from "../runtime.fixture.js";

const skipNamespaces = await bwrapSkipReason();
const asRoot = process.getuid?.() === 0;
const root = temporaryDirectory("host-state");
after(() => root.remove());

function runtime(options: LocalRuntimeOptions = {}): LocalRuntime {
  return new LocalRuntime({ root: root.path, killGraceMs: 100, ...options });
}

/** Host-global files a command must not be able to open for writing (opening with `>` writes nothing); those this kernel has. */
const HOST_GLOBAL = [
  "/proc/sys/kernel/core_pattern",
  "/proc/sys/kernel/panic",
  "/proc/sys/vm/overcommit_memory",
].filter((path) => existsSync(path));
const SYSRQ = "/proc/sysrq-trigger";

describe("namespaces: host-global kernel state", { skip: skipNamespaces }, () => {
  test("sysctls, core_pattern and the SysRq trigger cannot be opened for writing inside", async () => {
    const isolated = runtime({ isolation: "namespaces" });
    const handle = await isolated.launch();
    try {
      const targets = [...HOST_GLOBAL, SYSRQ];
      const script = targets.map((path) => `( true > ${path} && echo "OPENED ${path}" ) 2>&1`).join("; ");
      const result = await isolated.exec(handle, { shell: script });
      assert.ok(HOST_GLOBAL.includes("/proc/sys/kernel/core_pattern"));
      assert.doesNotMatch(result.stdout, /OPENED/, result.stdout);
      for (const path of HOST_GLOBAL) {
        assert.match(result.stdout, new RegExp(`${path}: (Read-only file system|Permission denied)`), result.stdout);
      }
      // The kernel may have no SysRq at all; then the trigger is absent inside too.
      assert.match(result.stdout, /sysrq-trigger: (Read-only file system|Permission denied|Directory nonexistent)/);
      const inside = await isolated.exec(handle, { shell: "cat /proc/sys/kernel/core_pattern" });
      assert.equal(inside.stdout, readFileSync("/proc/sys/kernel/core_pattern", "utf8"), "still readable, unchanged");
    } finally {
      await isolated.destroy(handle);
    }
  });

  test("control: as root, bubblewrap without the read-only /proc entries leaves core_pattern writable", {
    skip: asRoot ? undefined : "only root can write sysctls",
  }, () => {
    const bare = ["--unshare-all", "--unshare-user", "--die-with-parent", "--cap-drop", "ALL"];
    bare.push("--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib");
    bare.push("--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev");
    const opened = spawnSync("/usr/bin/bwrap", [
      ...bare,
      "sh",
      "-c",
      "true > /proc/sys/kernel/core_pattern && echo OPENED",
    ]);
    assert.equal(opened.stdout.toString().trim(), "OPENED", opened.stderr.toString());
  });
});

describe("namespaces: the user commands run as", { skip: skipNamespaces }, () => {
  test("as root, commands run as the sandbox's own unprivileged uid (and gid), which owns the workspace", {
    skip: asRoot ? undefined : "the runtime is not root: commands run as its own user",
  }, async () => {
    const isolated = runtime({ isolation: "namespaces" });
    const handle = await isolated.launch();
    try {
      const { user } = JSON.parse(readFileSync(join(root.path, handle.id, "sandbox.json"), "utf8"));
      const { uid, gid } = user as { uid: number; gid: number };
      const { first, count } = DEFAULT_SANDBOX_UIDS;
      assert.ok(uid >= first && uid < first + count && gid === uid, `uid ${uid} and gid ${gid} from the default range`);
      const result = await isolated.exec(handle, {
        shell: "id -u; id -g; echo hi > made-inside; grep CapEff /proc/self/status",
      });
      assert.equal(result.exitCode, 0, result.stderr);
      const [shownUid, shownGid, capabilities] = result.stdout.trim().split("\n");
      assert.equal(Number(shownUid), uid);
      assert.equal(Number(shownGid), gid);
      assert.match(capabilities ?? "", /CapEff:\s+0+$/);
      const workspace = statSync(handle.workspaceDirectory);
      assert.deepEqual([workspace.uid, workspace.gid, workspace.mode & 0o777], [uid, gid, 0o700]);
      assert.equal(statSync(join(handle.workspaceDirectory, "made-inside")).uid, uid);
      await isolated.writeFiles(handle, [{ path: "from-host/file.txt", content: "x" }]);
      await isolated.mkdir(handle, "made-by-mkdir");
      for (const path of ["from-host", "from-host/file.txt", "made-by-mkdir"]) {
        assert.equal(statSync(join(handle.workspaceDirectory, path)).uid, uid, `${path} belongs to the sandbox user`);
      }
      const edit = await isolated.exec(handle, { shell: "echo more >> from-host/file.txt && rm -r made-by-mkdir" });
      assert.equal(edit.exitCode, 0, `the sandbox user can change what the runtime wrote: ${edit.stderr}`);
    } finally {
      await isolated.destroy(handle);
    }
  });

  test("as root, the parents created for a new root let the sandbox user through, and list nothing", {
    skip: asRoot ? undefined : "the runtime is not root: commands run as its own user",
  }, async () => {
    const nested = join(root.path, "created", "for", "the-root");
    const isolated = runtime({ root: nested, isolation: "namespaces" });
    const handle = await isolated.launch();
    try {
      const result = await isolated.exec(handle, { shell: "id -u" });
      assert.equal(result.exitCode, 0, result.stderr);
      for (const directory of [join(root.path, "created"), join(root.path, "created", "for"), nested]) {
        assert.equal(statSync(directory).mode & 0o777, 0o711, `${directory} is searchable, not readable`);
      }
    } finally {
      await isolated.destroy(handle);
    }
  });

  test("as root, a configured sandbox user is used instead", {
    skip: asRoot ? undefined : "the runtime is not root: commands run as its own user",
  }, async () => {
    const isolated = runtime({ isolation: "namespaces", sandboxUser: { uid: 23456, gid: 23457 } });
    const handle = await isolated.launch();
    try {
      const result = await isolated.exec(handle, { shell: "id -u; id -g" });
      assert.equal(result.stdout, "23456\n23457\n");
    } finally {
      await isolated.destroy(handle);
    }
  });

  test("not as root, commands run as the runtime's own user", {
    skip: asRoot ? "the runtime is root: commands run as the sandbox user" : undefined,
  }, async () => {
    const isolated = runtime({ isolation: "namespaces" });
    const handle = await isolated.launch();
    try {
      const result = await isolated.exec(handle, { shell: "id -u" });
      assert.equal(Number(result.stdout), process.getuid?.());
    } finally {
      await isolated.destroy(handle);
    }
  });
});

describe("as root: the sandbox user can reach the root", {
  skip: skipNamespaces ?? (asRoot ? undefined : "only root's commands run as another user"),
}, () => {
  test("a root first made by a none runtime serves a namespaces runtime (its new parents pass the sandbox user)", async () => {
    const scratch = temporaryDirectory("root-parents");
    const nested = join(scratch.path, "made", "here", "root");
    chmodSync(scratch.path, 0o711);
    try {
      const plain = new LocalRuntime({ root: nested, isolation: "none" });
      await plain.destroy(await plain.launch());
      assert.equal(
        statSync(join(scratch.path, "made")).mode & 0o001,
        0o001,
        "a parent made for the root passes others",
      );
      const isolated = new LocalRuntime({ root: nested, isolation: "namespaces" });
      const handle = await isolated.launch();
      try {
        assert.equal((await isolated.exec(handle, { shell: "echo reached" })).stdout, "reached\n");
      } finally {
        await isolated.destroy(handle);
      }
    } finally {
      scratch.remove();
    }
  });
});

for (const isolation of ["namespaces", "none"] as const) {
  describe(`${isolation}: descriptors the embedding process inherited`, {
    skip: isolation === "namespaces" ? skipNamespaces : undefined,
  }, () => {
    test("an inherited writable descriptor is not usable inside; a plain child of the same process can use it", async () => {
      const scratch = temporaryDirectory("inherited");
      const target = join(scratch.path, "leaked.txt");
      const descriptor = openSync(target, "a");
      try {
        const script = `
          import { spawnSync } from "node:child_process";
          import { LocalRuntime } from ${JSON.stringify(ENTRY)};
          // Control: an ordinary child inherits descriptor 200 and can write through it.
          spawnSync("/bin/sh", ["-c", "echo control > /proc/self/fd/200"]);
          const runtime = new LocalRuntime({ root: ${JSON.stringify(root.path)}, isolation: ${JSON.stringify(isolation)} });
          const handle = await runtime.launch();
          const result = await runtime.exec(handle, { shell: "readlink /proc/self/fd/200; echo sandboxed > /proc/self/fd/200" });
          await runtime.destroy(handle);
          console.log(JSON.stringify(result));
        `;
        const child = await runNodeChild(script, {}, { 200: descriptor });
        assert.equal(child.code, 0, child.stderr);
        const result = JSON.parse(child.stdout) as { stdout: string };
        assert.notEqual(result.stdout.trim(), target, "descriptor 200 inside does not lead to the file");
        assert.equal(readFileSync(target, "utf8"), "control\n", "only the control wrote to the file");
      } finally {
        closeSync(descriptor);
        scratch.remove();
      }
    });
  });
}
