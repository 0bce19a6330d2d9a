// Two runtimes over one root: once one destroyed a sandbox, the other's portEndpoint says NOT_FOUND,
// whatever it had seen of the sandbox before (its record, its forwarder), never a stale URL or ENOENT.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, temporaryDirectory } from "../runtime.fixture.js";

const skipNamespaces = await bwrapSkipReason();
const root = temporaryDirectory("port-endpoint-instances");
after(() => root.remove());

const notFound = (error: unknown) => {
  assert.ok(SandportError.hasCode(error, "NOT_FOUND"), `expected NOT_FOUND, got ${String(error)}`);
  return true;
};

describe("portEndpoint after another instance destroyed the sandbox", () => {
  test("with network: NOT_FOUND, not the URL it gave before", async () => {
    const first = new LocalRuntime({ root: root.path, isolation: "none" });
    const second = new LocalRuntime({ root: root.path, isolation: "none" });
    const handle = await first.launch({ network: true });
    assert.equal((await second.portEndpoint(handle, 8080)).url, "http://127.0.0.1:8080");
    await first.destroy(handle);
    await assert.rejects(second.portEndpoint(handle, 8080), notFound);
  });

  describe("declared ports without network", { skip: skipNamespaces }, () => {
    test("the other instance had used the sandbox: NOT_FOUND, not ENOENT", async () => {
      const first = new LocalRuntime({ root: root.path });
      const second = new LocalRuntime({ root: root.path });
      const handle = await first.launch({ ports: [8081] });
      await second.writeFiles(handle, [{ path: "seen.txt", content: "seen" }]);
      await first.destroy(handle);
      await assert.rejects(second.portEndpoint(handle, 8081), notFound);
    });

    test("the other instance had a forwarder: NOT_FOUND, not its URL", async () => {
      const first = new LocalRuntime({ root: root.path });
      const second = new LocalRuntime({ root: root.path });
      const handle = await first.launch({ ports: [8082] });
      assert.match((await second.portEndpoint(handle, 8082)).url, /^http:\/\/127\.0\.0\.1:\d+$/);
      await first.destroy(handle);
      await assert.rejects(second.portEndpoint(handle, 8082), notFound);
    });

    test("the other instance is destroying it (files gone, metadata not yet): NOT_FOUND, not ENOENT", async () => {
      // Without a bounded workspace (a default disk bound puts the workspace under disk/), whose files are removed here.
      const first = new LocalRuntime({ root: root.path, defaultResources: false });
      const second = new LocalRuntime({ root: root.path });
      const handle = await first.launch({ ports: [8083] });
      // Where `destroy` is between removing the sandbox's files and its metadata, which it removes last.
      for (const name of ["ports", "workspace"]) rmSync(join(root.path, handle.id, name), { recursive: true });
      await assert.rejects(second.portEndpoint(handle, 8083), notFound);
      await first.destroy(handle);
    });
  });
});
