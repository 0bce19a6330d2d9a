// The `workspaceRoot` option: where the workspace appears inside an isolated sandbox and the root of request paths.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { LocalRuntime, type LocalRuntimeOptions } from "./index.js";
import { bwrapSkipReason, temporaryDirectory } from "./runtime.fixture.js";

const skipNamespaces = await bwrapSkipReason();
const root = temporaryDirectory("workspace-root");
after(() => root.remove());
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function runtime(options: LocalRuntimeOptions): LocalRuntime {
  return new LocalRuntime({ root: root.path, killGraceMs: 100, ...options });
}

describe("workspaceRoot", () => {
  test("is /workspace by default and the given path otherwise", () => {
    assert.equal(runtime({ isolation: "none" }).workspaceRoot, "/workspace");
    assert.equal(runtime({ isolation: "none", workspaceRoot: "/home/user" }).workspaceRoot, "/home/user");
  });

  test("refuses a path that is not absolute and normalized, /, or a system directory, with INVALID_REQUEST", () => {
    const bad = ["home/user", "", "/", "/home//user", "/home/user/", "/home/./user", "/home/x/../user", "/a\nb"];
    const system = ["/proc", "/sys/x", "/dev", "/usr", "/usr/local/app", "/etc", "/bin", "/lib", "/lib64", "/tmp"];
    for (const workspaceRoot of [...bad, ...system, 7]) {
      assert.throws(
        () => runtime({ isolation: "none", workspaceRoot: workspaceRoot as string }),
        (error) => SandportError.hasCode(error, "INVALID_REQUEST") && /workspaceRoot/.test((error as Error).message),
        JSON.stringify(workspaceRoot),
      );
    }
  });

  test("roots request paths under none: /home/user/x is the workspace's x, /workspace/x is refused", async () => {
    const rt = runtime({ isolation: "none", workspaceRoot: "/home/user" });
    const handle = await rt.launch();
    try {
      await rt.writeFiles(handle, [{ path: "/home/user/x", content: "hello" }]);
      assert.equal(text(await rt.readFile(handle, "x")), "hello");
      await assert.rejects(rt.readFile(handle, "/workspace/x"), (error) =>
        SandportError.hasCode(error, "INVALID_REQUEST"),
      );
    } finally {
      await rt.destroy(handle);
    }
  });

  test("under namespaces, commands see the workspace there, as cwd and HOME; /workspace is absent", {
    skip: skipNamespaces,
  }, async () => {
    const rt = runtime({ isolation: "namespaces", workspaceRoot: "/home/user" });
    const handle = await rt.launch();
    try {
      await rt.writeFiles(handle, [{ path: "/home/user/sub/x", content: "from the files API" }]);
      const result = await rt.exec(handle, {
        shell:
          'cat /home/user/sub/x; echo; pwd; echo "$HOME $TMPDIR"; test -e /workspace && echo WORKSPACE; echo y > /home/user/y; echo t > /tmp/t',
      });
      assert.equal(result.exitCode, 0, result.stderr);
      assert.equal(result.stdout, "from the files API\n/home/user\n/home/user /home/user/.tmp\n");
      assert.equal(text(await rt.readFile(handle, "/home/user/y")), "y\n");
      const inSub = await rt.exec(handle, { argv: ["pwd"], cwd: "/home/user/sub" });
      assert.equal(inSub.stdout, "/home/user/sub\n");
      const control = runtime({ isolation: "namespaces" });
      const other = await control.launch();
      const plain = await control.exec(other, { shell: "pwd; test -e /home/user && echo HOME_USER" });
      assert.equal(plain.stdout, "/workspace\n", "control: the default root is /workspace, with no /home/user");
      await control.destroy(other);
    } finally {
      await rt.destroy(handle);
    }
  });
});
