// TanStack AI's own lifecycle on the provider: defineSandbox's ensure creates under the sandbox key and
// bootstraps the workspace through the handle (instructions, serial setup over a spawned shell, parallel
// setup over exec), a second ensure resumes the same sandbox, and destroy removes it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type LocalTestRuntime, localTestRuntime } from "@sandport/testkit/fakes";
import { defineSandbox, defineWorkspace, InMemorySandboxStore } from "@tanstack/ai-sandbox";
import { SANDBOX_ID_LABEL } from "./options.js";
import { sandportSandboxProvider } from "./provider.js";

let local: LocalTestRuntime;
before(async () => {
  local = await localTestRuntime("tanstack-define");
});
after(() => local.cleanup());

test("ensure creates and bootstraps once, resumes on the next run, and destroy removes the sandbox", async () => {
  const definition = defineSandbox({
    id: "coder",
    provider: sandportSandboxProvider({ runtime: local.runtime }),
    workspace: defineWorkspace({
      source: { type: "none" },
      instructions: "Run the tests before you finish.",
      setup: (steps) => {
        steps.serial("mkdir -p app && cd app && export GREETING=hi");
        // The serial shell's cd and export carry over to the parallel steps (run with exec).
        steps.parallel(['echo "$GREETING one" > one.txt', 'echo "$GREETING two" > two.txt']);
        steps.serial("echo done > done.txt");
      },
    }),
  });
  const store = new InMemorySandboxStore();
  const context = { threadId: "thread-1", runId: "run-1", store };
  const key = definition.key(context);

  const first = await definition.ensure(context);
  assert.equal(first.id, key, "the sandbox key is the handle's id");
  assert.equal((await local.runtime.findByLabels({ [SANDBOX_ID_LABEL]: key })).length, 1);
  assert.equal(await first.fs.read("/workspace/AGENTS.md"), "Run the tests before you finish.");
  assert.equal((await first.process.exec("readlink CLAUDE.md")).stdout, "AGENTS.md\n");
  assert.equal(await first.fs.read("/workspace/app/one.txt"), "hi one\n");
  assert.equal(await first.fs.read("/workspace/app/two.txt"), "hi two\n");
  assert.equal(await first.fs.read("/workspace/app/done.txt"), "done\n");

  await first.fs.write("/workspace/app/progress.txt", "half");
  const second = await definition.ensure({ ...context, runId: "run-2" });
  assert.equal(second.id, key);
  assert.equal(await second.fs.read("/workspace/app/progress.txt"), "half");
  assert.equal((await local.runtime.findByLabels({ [SANDBOX_ID_LABEL]: key })).length, 1, "no second sandbox");

  await definition.destroy(context);
  assert.deepEqual(await local.runtime.findByLabels({ [SANDBOX_ID_LABEL]: key }), []);
});

test("git runs through commands, and a failing git command rejects instead of passing unnoticed", async () => {
  const handle = await sandportSandboxProvider({ runtime: local.runtime }).create({ id: "git" });
  try {
    await assert.rejects(handle.git.status(), /a git command failed \(exit status 128\): .*not a git repository/);
    await handle.process.exec("git init -q -b trunk . && git config user.email a@b && git config user.name a");
    await handle.fs.write("/workspace/a.txt", "a");
    assert.equal(await handle.git.status(), "?? a.txt\n");
    await handle.git.add(["a.txt"]);
    await handle.git.commit("first");
    assert.equal(await handle.git.branch(), "trunk");
    assert.equal(await handle.git.status(), "");
  } finally {
    await handle.destroy();
  }
});
