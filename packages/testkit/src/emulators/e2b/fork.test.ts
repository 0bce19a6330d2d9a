// E2B's fork through the real e2b SDK (README.md, "Contract (fork)"): each fork is a new
// sandbox holding a real copy of the source's files, with its metadata and environment, and
// the source keeps running untouched; the request's rules are E2B's.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as e2b from "e2b";
import { useEmulator } from "./sdk-tests.fixture.js";

describe("E2B emulator: fork", () => {
  const fixture = useEmulator();
  const entryOf = (id: string) => fixture.emulator.liveSandboxes().find((entry) => entry.id === id);

  it("forks copy the source's files, metadata and environment; later writes stay apart; the source runs on", async () => {
    const { emulator } = fixture;
    const source = await fixture.create({ metadata: { owner: "me", step: "1" }, envs: { GREETING: "hello" } });
    await source.files.write("/home/user/state.txt", "before");
    const sourceEnd = (await e2b.Sandbox.getInfo(source.sandboxId, emulator.sdkOptions)).endAt;
    emulator.resetRequests();
    const forks = await e2b.Sandbox.fork(source.sandboxId, { ...emulator.sdkOptions, count: 2, timeoutMs: 60_000 });
    assert.equal(emulator.countRequests("POST /sandboxes/:id/fork"), 1, "one request makes every fork");
    assert.equal(forks.length, 2);
    const [first, second] = forks.map((fork) => {
      assert.ok(fork instanceof e2b.Sandbox, String(fork));
      return fork;
    }) as [e2b.Sandbox, e2b.Sandbox];
    assert.equal(new Set([source.sandboxId, first.sandboxId, second.sandboxId]).size, 3, "new ids");
    assert.equal(entryOf(source.sandboxId)?.state, "running", "the source keeps running");
    const after = await e2b.Sandbox.getInfo(source.sandboxId, emulator.sdkOptions);
    assert.deepEqual(after.endAt, sourceEnd, "the source's end of life is untouched");
    const info = await e2b.Sandbox.getInfo(first.sandboxId, emulator.sdkOptions);
    assert.deepEqual(info.metadata, { owner: "me", step: "1" }, "the source's metadata, copied");
    const life = info.endAt.getTime() - info.startedAt.getTime();
    assert.ok(life > 50_000 && life <= 60_000, `the fork lives timeout seconds, not the source's time (${life})`);
    assert.equal(await first.files.read("/home/user/state.txt"), "before");
    assert.equal((await first.commands.run("echo $GREETING")).stdout.trim(), "hello", "the source's environment");
    await source.files.write("/home/user/state.txt", "source");
    await first.files.write("/home/user/state.txt", "first");
    assert.equal(await source.files.read("/home/user/state.txt"), "source");
    assert.equal(await first.files.read("/home/user/state.txt"), "first");
    assert.equal(await second.files.read("/home/user/state.txt"), "before", "each fork is a copy of its own");
    await e2b.Sandbox.kill(source.sandboxId, emulator.sdkOptions);
    assert.equal(await first.files.read("/home/user/state.txt"), "first", "a fork outlives its source");
  });

  it("a fork lives 15 s without a timeout; count and timeout are checked before the source is looked up", async () => {
    const { emulator } = fixture;
    const source = await fixture.create();
    const [fork] = await e2b.Sandbox.fork(source.sandboxId, emulator.sdkOptions);
    assert.ok(fork instanceof e2b.Sandbox, String(fork));
    const info = await e2b.Sandbox.getInfo(fork.sandboxId, emulator.sdkOptions);
    assert.equal(info.endAt.getTime() - info.startedAt.getTime(), 15_000, "SandboxForkRequest.timeout @default 15");
    const live = emulator.liveSandboxes().length;
    const refused = async (options: { count?: number; timeoutMs?: number }, id: string, message: RegExp) =>
      assert.rejects(e2b.Sandbox.fork(id, { ...emulator.sdkOptions, ...options }), (error: Error) =>
        message.test(error.message),
      );
    await refused({ count: 0 }, "missing", /400: Count must be at least 1/);
    await refused({ count: 101 }, "missing", /400: Count cannot be greater than 100/);
    await refused({ count: 100 }, "missing", /400: Count must be lower than the maximum number of concurrent/);
    await refused({ timeoutMs: 25 * 3_600_000 }, "missing", /400: Timeout cannot be greater than 24 hours/);
    await refused({ count: 1.5 }, source.sandboxId, /400: validation error: .*"\/count"/);
    assert.equal(emulator.liveSandboxes().length, live, "nothing was made");
  });

  it("an unknown or killed source is 404 (SandboxNotFoundError), a paused one 409; nothing is made", async () => {
    const { emulator } = fixture;
    const source = await fixture.create();
    await e2b.Sandbox.pause(source.sandboxId, emulator.sdkOptions);
    const live = emulator.liveSandboxes().length;
    await assert.rejects(e2b.Sandbox.fork(source.sandboxId, emulator.sdkOptions), (error: Error) =>
      /409: Sandbox '.*' is paused and cannot be forked; resume it first/.test(error.message),
    );
    await e2b.Sandbox.kill(source.sandboxId, emulator.sdkOptions);
    await assert.rejects(
      e2b.Sandbox.fork(source.sandboxId, emulator.sdkOptions),
      (error: Error) => error instanceof e2b.SandboxNotFoundError,
    );
    assert.equal(emulator.liveSandboxes().length, live - 1, "no fork was made");
  });
});
