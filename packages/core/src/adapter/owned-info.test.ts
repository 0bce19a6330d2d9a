import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { FakeContext } from "./fake-context.js";
import { onOwnedInfo } from "./owned-info.js";

const codeOf = (error: unknown) => (SandportError.isInstance(error) ? error.code : "untyped");

test("onOwnedInfo: work gets the owned sandbox's info (one lookup), which marks it ours", async () => {
  const context = new FakeContext();
  context.add("a", "me", { job: "7" });
  const seen = await onOwnedInfo(context, { id: "a" }, undefined, "start", 1_000, async (info, _call, id) => [
    info.labels.job,
    id,
  ]);
  assert.deepEqual(seen, ["7", "a"]);
  assert.equal(context.describes, 1);
  assert.equal(context.known.isOwned("a"), true);
});

test("onOwnedInfo: absent is NOT_FOUND, another owner's FOREIGN_SANDBOX, a bad handle INVALID_REQUEST; work never runs", async () => {
  const context = new FakeContext();
  context.add("theirs", "someone-else");
  let ran = 0;
  const work = async () => {
    ran++;
  };
  const codes = [];
  for (const handle of [{ id: "missing" }, { id: "theirs" }, {}]) {
    codes.push(await onOwnedInfo(context, handle, undefined, "start", 1_000, work).then(() => "ok", codeOf));
  }
  assert.deepEqual(codes, ["NOT_FOUND", "FOREIGN_SANDBOX", "INVALID_REQUEST"]);
  assert.equal(ran, 0);
});
