import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { invalidRequest } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import { createErrorMapper } from "./error-mapper.js";
import { KnownSandboxes } from "./known-sandboxes.js";
import { createOperationRunner } from "./operation-runner.js";
import { launchFailure } from "./reclaim-launch.js";

const runner = createOperationRunner({
  provider: "fake",
  mapError: createErrorMapper({ provider: "fake" }),
  sandboxIdOf: (handle, operation) => {
    const id = (handle as { id?: unknown } | null)?.id;
    if (typeof id !== "string" || id.includes("/")) throw invalidRequest(`${operation} needs an id`, {}, "fake");
    return id;
  },
});

test("run maps failures at the site with the provider's mapper, and applies the deadline", async () => {
  const failed = await expectCode(
    runner.run(undefined, { operation: "probe", sandboxId: "s1" }, 1_000, async () => {
      throw Object.assign(new Error("busy"), { status: 503 });
    }),
    "PROVIDER_UNAVAILABLE",
  );
  assert.match(failed.message, /^fake probe failed \(sandbox s1\): busy$/);
  await expectCode(
    runner.run({ timeoutMs: 20 }, { operation: "slow" }, 1_000, () => new Promise(() => {})),
    "DEADLINE_EXCEEDED",
  );
});

test("onHandle checks the handle's id before the task, and puts it in the site", async () => {
  let ran = false;
  await expectCode(
    runner.onHandle({ id: "a/b" }, undefined, "exec", 1_000, async () => {
      ran = true;
    }),
    "INVALID_REQUEST",
  );
  assert.equal(ran, false);
  assert.equal(
    await runner.onHandle({ id: "s2" }, undefined, { operation: "stat", path: "/x" }, 1_000, async (id) => id),
    "s2",
  );
  const failed = await expectCode(
    runner.onHandle({ id: "s3" }, undefined, { operation: "stat", path: "/x" }, 1_000, async () => {
      throw new Error("odd");
    }),
    "UNEXPECTED",
  );
  assert.deepEqual([failed.details.sandboxId, failed.details.path], ["s3", "/x"]);
});

test("KnownSandboxes: owned, pristine until a command runs, forgotten with or without ownership", () => {
  const known = new KnownSandboxes();
  known.markPristine("a");
  assert.deepEqual([known.isOwned("a"), known.isPristine("a")], [true, true]);
  known.markCommandRun("a");
  assert.equal(known.isPristine("a"), false);
  known.markOwned("b");
  assert.deepEqual([known.isOwned("b"), known.isPristine("b")], [true, false]);
  known.markPristine("c");
  known.forget("c", { keepOwnership: true });
  assert.deepEqual([known.isOwned("c"), known.isPristine("c")], [true, false]);
  known.forget("c");
  assert.equal(known.isOwned("c"), false);
});

test("launchFailure keeps the code and says whether to search by launch key", () => {
  const cause = new Error("socket hang up");
  const lost = launchFailure(
    new SandportError({ code: "PROVIDER_UNAVAILABLE", provider: "fake", message: "fake launch failed" }),
    cause,
    "key-1",
  );
  assert.deepEqual(
    [lost.code, lost.provider, lost.retryable, lost.cause],
    ["PROVIDER_UNAVAILABLE", "fake", true, cause],
  );
  assert.equal(lost.message, "fake launch failed (the sandbox may exist anyway: search launch key key-1)");
  assert.deepEqual([lost.details.launchKey, lost.details.outcomeUnknown], ["key-1", true]);
  const refused = launchFailure(
    new SandportError({ code: "RATE_LIMITED", provider: "fake", message: "slow down", details: { status: 429 } }),
    cause,
    "key-2",
  );
  assert.deepEqual(
    [refused.message, refused.details.outcomeUnknown, refused.details.status],
    ["slow down", false, 429],
  );
});
