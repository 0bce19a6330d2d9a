import assert from "node:assert/strict";
import { test } from "node:test";
import { FAILOVER_CODES, failoverCodes } from "./failover-policy.js";

test("by default a launch moves on every failover code; `on` narrows them", () => {
  assert.deepEqual([...failoverCodes(undefined)], [...FAILOVER_CODES]);
  assert.deepEqual([...failoverCodes({})], [...FAILOVER_CODES]);
  assert.deepEqual([...failoverCodes({ on: ["RATE_LIMITED"] })], ["RATE_LIMITED"]);
  assert.deepEqual([...failoverCodes({ on: [] })], [], "an empty list never moves");
});

test("a code that does not say the provider gave no sandbox, or an unknown key, is refused", () => {
  assert.throws(() => failoverCodes({ on: ["NOT_FOUND" as never] }), {
    code: "INVALID_REQUEST",
    message: /"NOT_FOUND" is not one of PROVIDER_UNAVAILABLE, RATE_LIMITED, DEADLINE_EXCEEDED/,
  });
  assert.throws(() => failoverCodes({ on: "RATE_LIMITED" as never }), { code: "INVALID_REQUEST" });
  assert.throws(() => failoverCodes({ codes: [] } as never), {
    code: "INVALID_REQUEST",
    message: /unknown key "codes"/,
  });
  assert.throws(() => failoverCodes(null as never), { code: "INVALID_REQUEST" });
});
