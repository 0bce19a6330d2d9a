import assert from "node:assert/strict";
import type { SandboxHandle } from "@sandport/core";
import { expectCode, readText } from "./assertions.js";
import { type CheckGroup, GROUP_LABEL, RUN_LABEL } from "./suite.js";

/**
 * Registers `lifecycle.fork`, for runtimes with `fork`: the fork is a new
 * sandbox (new id, the source's labels) holding the source's files as they
 * were; later writes to either are not seen by the other; both are listed as
 * ours by label; labels given to `fork` replace the source's; destroying one
 * leaves the other working; a fork of a destroyed sandbox is `NOT_FOUND`.
 */
export function declareForkChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const has = typeof runtime.fork === "function";
  group.check(
    "lifecycle.fork",
    async () => {
      const labels = { [GROUP_LABEL]: "lifecycle-fork" };
      const source = await suite.launch({ labels });
      let fork: H | undefined;
      try {
        await runtime.writeFiles(source, [{ path: "fork/state.txt", content: "before" }]);
        fork = suite.track(await runtime.fork!(source));
        assert.notEqual(fork.id, source.id, "the fork is a new sandbox");
        assert.equal(fork.provider, runtime.provider);
        assert.deepEqual({ ...fork.labels }, { ...source.labels }, "the fork is labelled like its source");
        assert.equal(await readText(runtime, fork, "fork/state.txt"), "before", "the fork has the source's files");
        await runtime.writeFiles(source, [{ path: "fork/state.txt", content: "written in the source" }]);
        await runtime.writeFiles(fork, [{ path: "fork/state.txt", content: "written in the fork" }]);
        await runtime.writeFiles(fork, [{ path: "fork/only-in-fork.txt", content: "fork" }]);
        assert.equal(await readText(runtime, source, "fork/state.txt"), "written in the source");
        assert.equal(await readText(runtime, fork, "fork/state.txt"), "written in the fork");
        await expectCode(
          () => runtime.readFile(source, "fork/only-in-fork.txt"),
          "NOT_FOUND",
          "a file made in the fork, read in the source",
        );
        const result = await runtime.exec(fork, { argv: ["cat", "fork/state.txt"] });
        assert.equal(result.stdout, "written in the fork", "the fork runs commands");
        if (suite.capabilities.labelSearch === true) {
          const found = await runtime.findByLabels!({ [RUN_LABEL]: suite.runId, ...labels });
          assert.deepEqual(found.map((handle) => handle.id).sort(), [source.id, fork.id].sort(), "both are ours");
        }
        const relabelled = suite.track(
          await runtime.fork!(source, { labels: suite.labelsFor({ [GROUP_LABEL]: "lifecycle-fork-relabelled" }) }),
        );
        try {
          assert.equal(relabelled.labels[GROUP_LABEL], "lifecycle-fork-relabelled", "labels given to fork");
          await expectCode(
            () => runtime.readFile(relabelled, "fork/only-in-fork.txt"),
            "NOT_FOUND",
            "a file of the first fork, in a second fork of the source",
          );
          assert.equal(await readText(runtime, relabelled, "fork/state.txt"), "written in the source");
        } finally {
          await suite.destroy(relabelled);
        }
      } finally {
        await suite.destroy(source);
      }
      assert.equal(
        await readText(runtime, fork, "fork/state.txt"),
        "written in the fork",
        "the fork outlives its source",
      );
      await expectCode(() => runtime.fork!(source), "NOT_FOUND", "a fork of a destroyed sandbox");
      if (suite.capabilities.labelSearch === true) {
        const found = await runtime.findByLabels!({ [RUN_LABEL]: suite.runId, ...labels });
        assert.deepEqual(
          found.map((handle) => handle.id),
          [fork.id],
          "the refused fork made nothing",
        );
      }
      await suite.destroy(fork);
    },
    { unavailable: has ? undefined : `fork is ${suite.capabilities.fork}: the runtime has no fork` },
  );
}
