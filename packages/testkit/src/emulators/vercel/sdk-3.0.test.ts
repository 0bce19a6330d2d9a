// Smoke test: the oldest SDK in the adapter's range (@vercel/sandbox 3.0.0,
// installed as vercel-sandbox-3.0) against the same emulator. Its wire is
// 3.5's minus regions, drives and mounts; it still sends several tag filters.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { APIError, Sandbox } from "vercel-sandbox-3.0";
import { startVercelEmulator, type VercelEmulator } from "./emulator.js";

describe("Vercel emulator with @vercel/sandbox 3.0.0", () => {
  let emulator: VercelEmulator;

  before(async () => {
    emulator = await startVercelEmulator();
  });

  after(() => emulator.stop());

  it("create → write → run → read → list → stop → resume → delete", async () => {
    const sandbox = await Sandbox.create({ ...emulator.sdkOptions, name: "old-sdk", tags: { sdk: "3.0" } });
    await sandbox.writeFiles([{ path: "work/note.txt", content: Buffer.from("from 3.0\n") }]);
    const result = await sandbox.runCommand({
      cmd: "sh",
      args: ["-c", 'cat note.txt; echo "$WHO"; exit 2'],
      cwd: "/vercel/sandbox/work",
      env: { WHO: "old" },
    });
    assert.equal(result.exitCode, 2);
    assert.equal(await result.stdout(), "from 3.0\nold\n");
    assert.equal((await sandbox.readFileToBuffer({ path: "work/note.txt" }))?.toString(), "from 3.0\n");

    const listed = await Sandbox.list({ ...emulator.sdkOptions, tags: { sdk: "3.0" } });
    assert.deepEqual(
      listed.sandboxes.map((entry) => entry.name),
      ["old-sdk"],
    );
    const twoTags = await Sandbox.list({ ...emulator.sdkOptions, tags: { sdk: "3.0", other: "x" } }).then(
      () => assert.fail("two tag filters must be refused"),
      (error: unknown) => error,
    );
    assert.ok(twoTags instanceof APIError && twoTags.response.status === 400);

    await sandbox.stop();
    const again = await Sandbox.get({ ...emulator.sdkOptions, name: "old-sdk" });
    assert.equal(await (await again.runCommand("cat", ["work/note.txt"])).stdout(), "from 3.0\n");
    await again.delete();
    assert.deepEqual(emulator.liveSandboxes(), []);
    const gone = await Sandbox.get({ ...emulator.sdkOptions, name: "old-sdk" }).then(
      () => assert.fail("a deleted sandbox is not found"),
      (error: unknown) => error,
    );
    assert.ok(gone instanceof APIError && gone.response.status === 404);
    assert.ok(emulator.requests.every((request) => request.headers["user-agent"]?.startsWith("vercel/sandbox/3.0.0 ")));
    assert.deepEqual(emulator.unknownRoutes, []);
  });
});
