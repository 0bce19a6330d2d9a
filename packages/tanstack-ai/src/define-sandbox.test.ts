// TanStack AI's own lifecycle on the provider: defineSandbox's ensure creates under the sandbox key and
// bootstraps the workspace through the handle (instructions, serial setup over a spawned shell, parallel
// setup over exec in the shell's directory), a second ensure resumes the same sandbox, and destroy removes it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type LocalTestRuntime, localTestRuntime, namespacesSkipReason } from "@sandport/testkit/fakes";
import { defineSandbox, defineWorkspace, InMemorySandboxStore } from "@tanstack/ai-sandbox";
import { SANDBOX_ID_LABEL } from "./options.js";
import { sandportSandboxProvider } from "./provider.js";

/** Why the test whose steps see the sandbox's own paths (a shell's `pwd` under `/workspace`) skips here, if it does. */
const namespacesOnly = await namespacesSkipReason();

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
      // One shell runs the serial steps: the second starts where the first cd-ed to.
      setup: ["mkdir -p app && cd app && echo one > one.txt", "echo done > done.txt"],
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
  assert.equal(await first.fs.read("/workspace/app/one.txt"), "one\n");
  assert.equal(await first.fs.read("/workspace/app/done.txt"), "done\n");

  await first.fs.write("/workspace/app/progress.txt", "half");
  const second = await definition.ensure({ ...context, runId: "run-2" });
  assert.equal(second.id, key);
  assert.equal(await second.fs.read("/workspace/app/progress.txt"), "half");
  assert.equal((await local.runtime.findByLabels({ [SANDBOX_ID_LABEL]: key })).length, 1, "no second sandbox");

  await definition.destroy(context);
  assert.deepEqual(await local.runtime.findByLabels({ [SANDBOX_ID_LABEL]: key }), []);
});

test("parallel setup steps run with exec in the directory the serial shell reached", {
  skip: namespacesOnly,
}, async () => {
  const definition = defineSandbox({
    id: "parallel",
    provider: sandportSandboxProvider({ runtime: local.runtime }),
    workspace: defineWorkspace({
      source: { type: "none" },
      setup: (steps) => {
        steps.serial("mkdir -p app && cd app");
        steps.parallel(["echo one > one.txt", "echo two > two.txt"]);
      },
    }),
  });
  const context = { threadId: "thread-parallel", runId: "run-1", store: new InMemorySandboxStore() };
  const handle = await definition.ensure(context);
  try {
    assert.equal(await handle.fs.read("/workspace/app/one.txt"), "one\n");
    assert.equal(await handle.fs.read("/workspace/app/two.txt"), "two\n");
  } finally {
    await definition.destroy(context);
  }
});

// TanStack AI's git names the sandbox's own paths in its command strings: a runtime without namespaces has none.
test("git runs through commands, and a failing git command rejects instead of passing unnoticed", {
  skip: namespacesOnly,
}, async () => {
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
