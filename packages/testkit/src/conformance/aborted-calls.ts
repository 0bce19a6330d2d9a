import assert from "node:assert/strict";
import type { SandboxHandle, SandboxRuntime, SandportError } from "@sandport/core";
import { collectEvents, delay, expectCode, fileExists } from "./assertions.js";
import { type CheckGroup, GROUP_LABEL, RUN_LABEL } from "./suite.js";

/**
 * Registers `lifecycle.aborted-calls`: every method of the runtime, given an
 * already-aborted signal and an otherwise valid request, rejects `ABORTED`
 * with the abort reason as `cause`, and has no effect.
 */
export function declareAbortedCallChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;

  group.check("lifecycle.aborted-calls", async () => {
    const handle = group.sandbox();
    const reason = new Error("aborted before the call");
    const controller = new AbortController();
    controller.abort(reason);
    const op = { signal: controller.signal };
    const aborted = async (what: string, action: () => unknown) => {
      const error: SandportError = await expectCode(action, "ABORTED", `${what} with an aborted signal`);
      assert.equal(error.cause, reason, `${what}: the abort reason is the error's cause`);
    };
    const has = (method: keyof SandboxRuntime<H>) => typeof runtime[method] === "function";
    const labels = { [GROUP_LABEL]: "lifecycle-aborted" };

    await aborted("launch", () => runtime.launch(suite.specFor({ labels }), op));
    await aborted("writeFiles", () => runtime.writeFiles(handle, [{ path: "aborted/written.txt", content: "x" }], op));
    await aborted("readFile", () => runtime.readFile(handle, "aborted/anything.txt", op));
    await aborted("exec", () => runtime.exec(handle, { shell: "echo ran >> aborted/ran.txt" }, op));
    await aborted("destroy", () => runtime.destroy(handle, op));
    if (has("execStream")) {
      await aborted("execStream", () =>
        collectEvents(() => runtime.execStream!(handle, { shell: "echo ran >> aborted/ran.txt" }, op)),
      );
    }
    if (has("getById")) await aborted("getById", () => runtime.getById!(handle.id, op));
    if (has("findByLabels")) await aborted("findByLabels", () => runtime.findByLabels!(labels, op));
    if (has("startCommand")) {
      const request = { sessionId: `aborted-${suite.token}`, shell: "echo ran >> aborted/ran.txt" };
      await aborted("startCommand", () => runtime.startCommand!(handle, request, op));
      const ref = await runtime.startCommand!(handle, { sessionId: `aborted-real-${suite.token}`, argv: ["true"] });
      await aborted("commandStatus", () => runtime.commandStatus!(handle, ref, op));
      await aborted("commandLogs", () => runtime.commandLogs!(handle, ref, op));
    }
    if (has("spawn"))
      await aborted("spawn", () => runtime.spawn!(handle, { shell: "echo ran >> aborted/ran.txt" }, op));
    if (has("portEndpoint")) await aborted("portEndpoint", () => runtime.portEndpoint!(handle, 18_080, op));
    if (has("mkdir")) {
      await aborted("mkdir", () => runtime.mkdir!(handle, "aborted/made", op));
      await aborted("listDir", () => runtime.listDir!(handle, ".", op));
      await aborted("stat", () => runtime.stat!(handle, ".", op));
      await aborted("remove", () => runtime.remove!(handle, "aborted", op));
    }

    await delay(200);
    for (const path of ["aborted/written.txt", "aborted/ran.txt", "aborted/made"]) {
      assert.equal(await fileExists(runtime, handle, path), false, `an aborted call left ${path} behind`);
    }
    if (has("findByLabels")) {
      const launched = await runtime.findByLabels!({ [RUN_LABEL]: suite.runId, ...labels });
      for (const found of launched) await suite.destroy(found);
      assert.deepEqual(launched, [], "an aborted launch created a sandbox");
    }
    const alive = await runtime.exec(handle, { argv: ["true"] });
    assert.equal(alive.exitCode, 0, "an aborted destroy left the sandbox working");
  });
}
