import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { launchFailure } from "./launch-failure.js";

const vendor = new Error("vendor said no");

test("an unknown outcome names the launch key to search; a refusal does not", () => {
  const lost = new SandportError({
    code: "PROVIDER_UNAVAILABLE",
    provider: "demo",
    message: "demo launch failed: reset",
  });
  const failure = launchFailure(lost, vendor, "key-1");
  assert.equal(failure.code, "PROVIDER_UNAVAILABLE");
  assert.equal(failure.provider, "demo");
  assert.equal(failure.cause, vendor);
  assert.match(failure.message, /may exist anyway: search launch key key-1\)$/);
  assert.deepEqual([failure.details.launchKey, failure.details.outcomeUnknown], ["key-1", true]);
  const refused = new SandportError({
    code: "RATE_LIMITED",
    provider: "demo",
    message: "demo launch failed: slow down",
    details: { status: 429 },
  });
  const typed = launchFailure(refused, vendor, "key-2");
  assert.equal(typed.message, "demo launch failed: slow down");
  assert.deepEqual([typed.details.status, typed.details.outcomeUnknown, typed.retryable], [429, false, true]);
});
