// The apply_patch editor against a real LocalRuntime: what create_file does
// where something already is, with and without the runtime's `stat`.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { UserError } from "@openai/agents-core";
import { dir, file, Manifest } from "@openai/agents-core/sandbox";
import { localTestRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { SandportSandboxClient, type SandportSandboxSession } from "./index.js";

const local = await localTestRuntime("openai-editor");
after(() => local.cleanup());

async function session(runtime = local.runtime): Promise<SandportSandboxSession> {
  const created = await new SandportSandboxClient({ runtime }).create({
    manifest: new Manifest({ entries: { "kept.txt": file({ content: "original\n" }), empty: dir() } }),
  });
  await created.start();
  return created;
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

for (const [name, runtime] of [
  ["with stat", local.runtime],
  ["without stat (a read tells)", withoutMethods(local.runtime, ["stat"])],
] as const) {
  describe(`create_file ${name}`, () => {
    test("refuses a path that already exists, as the framework's editors do, and leaves it unchanged", async () => {
      const sandbox = await session(runtime);
      try {
        const editor = sandbox.createEditor();
        await assert.rejects(
          editor.createFile({ type: "create_file", path: "kept.txt", diff: "+replaced\n" }),
          (error: unknown) =>
            error instanceof UserError && error.message === "Cannot create file because it already exists: kept.txt",
        );
        assert.equal(text(await sandbox.readFile({ path: "kept.txt" })), "original\n");
        const created = await editor.createFile({ type: "create_file", path: "new.txt", diff: "+fresh\n" });
        assert.equal(created.status, "completed");
        assert.equal(text(await sandbox.readFile({ path: "new.txt" })), "fresh");
      } finally {
        await sandbox.delete();
      }
    });
  });
}

test("create_file refuses a directory's path too", async () => {
  const sandbox = await session();
  try {
    await assert.rejects(
      sandbox.createEditor().createFile({ type: "create_file", path: "empty", diff: "+x\n" }),
      /Cannot create file because it already exists: empty/,
    );
    assert.equal(await sandbox.directoryExists("empty"), true);
  } finally {
    await sandbox.delete();
  }
});
