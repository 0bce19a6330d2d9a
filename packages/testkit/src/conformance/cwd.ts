import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { SandboxHandle } from "@sandport/core";
import { assertSucceeded, expectCode, fileExists } from "./assertions.js";
import type { CheckGroup } from "./suite.js";

/**
 * Registers the checks of a working directory outside the workspace: `/tmp`
 * and `/` are working directories like any other, a relative `cwd` still
 * means the workspace's, and a missing one (absolute or relative) is
 * `NOT_FOUND` naming it, with nothing run.
 */
export function declareCwdChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime } = group;

  group.check("exec.cwd-anywhere", async () => {
    const handle = group.sandbox();
    const name = `cwd-anywhere-${randomUUID()}.txt`;
    const inTmp = await runtime.exec(handle, { shell: `pwd; echo in-tmp > ${name}`, cwd: "/tmp" });
    assert.equal(assertSucceeded(inTmp, "pwd in /tmp").stdout, "/tmp\n", "pwd names /tmp");
    assert.equal(await fileExists(runtime, handle, name), false, "a file written in /tmp is in the workspace");
    const back = await runtime.exec(handle, { argv: ["cat", `/tmp/${name}`] });
    assert.equal(assertSucceeded(back, "cat from /tmp").stdout, "in-tmp\n", "the file is in /tmp");
    const atRoot = await runtime.exec(handle, { argv: ["pwd"], cwd: "/" });
    assert.equal(assertSucceeded(atRoot, "pwd in /").stdout, "/\n", "pwd names /");
    await runtime.writeFiles(handle, [{ path: "tmp/here.txt", content: "workspace-tmp" }]);
    const relative = await runtime.exec(handle, { argv: ["cat", "here.txt"], cwd: "tmp" });
    assert.equal(assertSucceeded(relative, "a relative cwd").stdout, "workspace-tmp", "relative is the workspace's");
    await runtime.exec(handle, { argv: ["rm", "-f", `/tmp/${name}`] });
  });

  group.check("exec.cwd-missing", async () => {
    const handle = group.sandbox();
    const probe = "cwd-missing-ran.txt";
    const absent = `/tmp/sandport-missing-${randomUUID()}`;
    for (const [cwd, named] of [
      [absent, absent],
      ["cwd-missing/inner", `${runtime.workspaceRoot}/cwd-missing/inner`],
    ] as const) {
      const error = await expectCode(
        () => runtime.exec(handle, { shell: `echo ran > ${runtime.workspaceRoot}/${probe}`, cwd }),
        "NOT_FOUND",
        `exec with the missing cwd ${cwd}`,
      );
      assert.equal(error.details?.cwd, named, `the error names the directory in details.cwd: ${error.message}`);
      assert.ok(error.message.includes(named), `the message names ${named}: ${error.message}`);
    }
    assert.equal(await fileExists(runtime, handle, probe), false, "a command with a missing cwd ran");
  });
}
