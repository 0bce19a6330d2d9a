import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { SandboxHandle, SandportError } from "@sandport/core";
import { assertSucceeded, expectCode, fileExists, pollUntil } from "./assertions.js";
import type { CheckGroup } from "./suite.js";

/**
 * Registers the checks of a working directory outside the workspace: `/tmp`
 * and `/` are working directories like any other (for `exec`, and `spawn`
 * and `startCommand` where the runtime has them), a relative `cwd` still
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
    if (runtime.spawn) {
      const process = await runtime.spawn(handle, { argv: ["pwd"], cwd: "/tmp" });
      assert.equal(assertSucceeded(await process.result, "spawn pwd in /tmp").stdout, "/tmp\n", "spawn in /tmp");
    }
    if (runtime.startCommand && runtime.commandLogs) {
      const ref = await runtime.startCommand(handle, { sessionId: `cwd-${randomUUID()}`, argv: ["pwd"], cwd: "/tmp" });
      const logs = await pollUntil(
        () => runtime.commandLogs!(handle, ref),
        (result) => result.exitCode !== null || result.timedOut || result.truncated,
        { timeoutMs: 30_000, intervalMs: 100, what: "startCommand pwd in /tmp" },
      );
      assert.equal(assertSucceeded(logs, "startCommand pwd in /tmp").stdout, "/tmp\n", "startCommand in /tmp");
    }
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
      assertNamed(error, named);
      const script = { shell: `echo ran > ${runtime.workspaceRoot}/${probe}`, cwd };
      if (runtime.spawn) {
        // Refused when spawn is called, or at the latest by its result: never a process that ran elsewhere.
        const refusal = await runtime
          .spawn(handle, script)
          .then((process) => process.result)
          .then(
            (result) => assert.fail(`spawn in the missing cwd ${cwd} ran: ${JSON.stringify(result)}`),
            (error: unknown) => error,
          );
        assertNamed(await expectCode(() => Promise.reject(refusal), "NOT_FOUND", `spawn in ${cwd}`), named);
      }
      if (runtime.startCommand) {
        const start = () => runtime.startCommand!(handle, { sessionId: `cwd-missing-${randomUUID()}`, ...script });
        assertNamed(await expectCode(start, "NOT_FOUND", `startCommand in ${cwd}`), named);
      }
    }
    assert.equal(await fileExists(runtime, handle, probe), false, "a command with a missing cwd ran");
  });
}

/** The error names the missing directory, absolute, in `details.cwd` and in its message. */
function assertNamed(error: SandportError, cwd: string): void {
  assert.equal(error.details?.cwd, cwd, `the error names the directory in details.cwd: ${error.message}`);
  assert.ok(error.message.includes(cwd), `the message names ${cwd}: ${error.message}`);
}
