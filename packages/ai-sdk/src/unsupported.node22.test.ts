// What a runtime lacks is refused with the framework's own "unsupported" error, before anything starts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { HarnessCapabilityUnsupportedError } from "@ai-sdk/harness";
import { SandportError } from "@sandport/core";
import { RecordingRuntime, withoutMethods } from "@sandport/testkit/fakes";
import { UnsupportedFunctionalityError } from "ai";
import { createHarnessSandboxProvider } from "./harness-provider.js";
import { createSandboxSession } from "./session.js";

/** The AI SDK's unsupported error, with Sandport's UNSUPPORTED as its cause. */
function isUnsupported(functionality: string) {
  return (error: unknown) => {
    assert.ok(UnsupportedFunctionalityError.isInstance(error), String(error));
    assert.equal(error.functionality, functionality);
    assert.ok(SandportError.hasCode(error.cause, "UNSUPPORTED"));
    return true;
  };
}

test("a runtime without spawn, stat, listDir or remove: those members reject before any call", async () => {
  const runtime = new RecordingRuntime();
  const handle = await runtime.launch({});
  const session = createSandboxSession({ runtime, handle });
  const before = runtime.calls.length;
  await assert.rejects(
    async () => await session.spawn({ command: "cat", stdin: true }),
    isUnsupported("spawn with writable stdin"),
  );
  await assert.rejects(async () => await session.stat({ path: "a" }), isUnsupported("stat"));
  await assert.rejects(async () => await session.listDirectory({ path: "." }), isUnsupported("listDirectory"));
  await assert.rejects(async () => await session.deleteFile({ path: "a" }), isUnsupported("deleteFile"));
  assert.equal(runtime.calls.length, before, "nothing reached the runtime");

  // Without execStream either, even a spawn without stdin cannot be served.
  const bare = createSandboxSession({ runtime: withoutMethods(runtime, ["execStream"]), handle });
  await assert.rejects(async () => await bare.spawn({ command: "echo hi" }), isUnsupported("spawn"));
  assert.equal(runtime.calls.length, before);

  // What the runtime has still works: spawn without stdin over execStream.
  const process = await session.spawn({ command: "echo hi" });
  assert.deepEqual(await process.wait(), { exitCode: 0 });
});

test("harness: no port endpoints, no stop and no label search are the harness's unsupported error or absent", async () => {
  const runtime = withoutMethods(new RecordingRuntime(), ["findByLabels"]);
  const provider = createHarnessSandboxProvider({ runtime });
  assert.equal(provider.resumeSession, undefined, "resume needs findByLabels");
  const session = await provider.createSession({ sessionId: "s-1" });
  const harnessUnsupported = (error: unknown) =>
    HarnessCapabilityUnsupportedError.isInstance(error) && SandportError.hasCode(error.cause, "UNSUPPORTED");
  await assert.rejects(async () => await session.getPortEndpoint({ port: 8000 }), harnessUnsupported);
  await assert.rejects(async () => await session.getPortUrl({ port: 8000 }), harnessUnsupported);
  await assert.rejects(async () => await session.stop(), harnessUnsupported);
  await session.destroy();
});
