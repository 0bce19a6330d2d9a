// Wire tests of filesystem snapshots: the real Modal SDK's
// sandbox.snapshotFilesystem(), a create from the Image it gives, and
// images.delete, against the emulator, which keeps the files on its backend.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { waitFor } from "../../assertions/index.js";
import { type ModalEmulator, startModalEmulator } from "./emulator.js";
import { clientFor, loadModal, type ModalClient } from "./sdk.fixture.js";

type App = Awaited<ReturnType<ModalClient["apps"]["fromName"]>>;
type Image = Awaited<ReturnType<ModalClient["images"]["fromId"]>>;

describe("Modal emulator filesystem snapshots with the real modal SDK", () => {
  let emulator: ModalEmulator;
  let client: ModalClient;
  let app: App;

  before(async () => {
    emulator = await startModalEmulator();
    client = clientFor(await loadModal(), emulator).client;
    app = await client.apps.fromName("sandport-tests", { createIfMissing: true });
  });

  after(() => emulator.stop());

  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) {
      await (await client.sandboxes.fromId(id)).terminate().catch(() => undefined);
    }
  });

  const create = (image: Image = client.images.fromRegistry("alpine:3.21")) =>
    client.sandboxes.create(app, image, { timeoutMs: 60_000, workdir: "/workspace" });

  it("snapshotFilesystem → an Image a create boots with the files as taken; the source runs on, its later writes its own", async () => {
    const source = await create();
    await source.filesystem.writeText("before", "/workspace/state.txt");
    emulator.resetRequests();
    const image = await source.snapshotFilesystem();
    assert.match(image.imageId, /^im-/);
    assert.deepEqual(
      emulator.requests.map((request) => request.route.split("/").pop()),
      ["TaskSnapshotFilesystem"],
      "one command-router call",
    );
    assert.equal(await source.poll(), null, "the source keeps running");
    await source.filesystem.writeText("after", "/workspace/state.txt");

    const restored = await create(image);
    assert.equal(await restored.filesystem.readText("/workspace/state.txt"), "before");
    await restored.filesystem.writeText("changed in the copy", "/workspace/state.txt");
    const again = await create(await client.images.fromId(image.imageId));
    assert.equal(await again.filesystem.readText("/workspace/state.txt"), "before", "the image is unchanged");
    assert.equal(await source.filesystem.readText("/workspace/state.txt"), "after");
  });

  it("images.delete removes it: fromId, a create and a second delete are NOT_FOUND; sandboxes booted from it keep their files", async () => {
    const modal = await loadModal();
    const source = await create();
    await source.filesystem.writeText("kept", "/workspace/state.txt");
    const image = await source.snapshotFilesystem({ ttlMs: null });
    const restored = await create(image);
    await client.images.delete(image.imageId);
    await assert.rejects(client.images.fromId(image.imageId), modal.NotFoundError);
    await assert.rejects(client.images.delete(image.imageId), modal.NotFoundError);
    const live = emulator.liveSandboxes().length;
    await assert.rejects(create(image), /not found/i);
    assert.equal(emulator.liveSandboxes().length, live, "a refused create launched nothing");
    assert.equal(await restored.filesystem.readText("/workspace/state.txt"), "kept");
  });

  it("an image past its ttl is gone (a hard cutoff from creation)", async () => {
    const modal = await loadModal();
    const source = await create();
    const image = await source.snapshotFilesystem({ ttlMs: 1_000 });
    assert.equal((await client.images.fromId(image.imageId)).imageId, image.imageId);
    // The cutoff is the wall clock: wait on the lookup itself.
    const gone = () =>
      client.images.fromId(image.imageId).then(
        () => false,
        (error: unknown) => {
          if (error instanceof modal.NotFoundError) return true;
          throw error;
        },
      );
    await waitFor(gone, { timeoutMs: 10_000, intervalMs: 100, what: "the image to expire" });
    await assert.rejects(create(image), /not found/i);
  });
});
