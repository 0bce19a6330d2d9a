import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { EXEC_REQUEST_KEYS } from "../port/exec-request.js";
import { FILE_INPUT_KEYS } from "../port/file-input.js";
import { LAUNCH_SPEC_KEYS } from "../port/launch-spec.js";
import { OP_OPTION_KEYS } from "../port/op-options.js";
import { describeValue, keyList, nearestKey, refuseUnknownKeys } from "./known-keys.js";

function refusal(check: () => unknown): SandportError {
  try {
    check();
  } catch (error) {
    assert.ok(SandportError.isInstance(error), String(error));
    return error;
  }
  return assert.fail("expected a refusal");
}

describe("nearestKey", () => {
  test("finds the key a typo was meant to be: a swap, a missing or extra letter, another case", () => {
    assert.equal(nearestKey("tiemoutMs", EXEC_REQUEST_KEYS), "timeoutMs");
    assert.equal(nearestKey("roto", ["root", "owner", "isolation"]), "root");
    assert.equal(nearestKey("timoutMs", EXEC_REQUEST_KEYS), "timeoutMs");
    assert.equal(nearestKey("timeoutms", EXEC_REQUEST_KEYS), "timeoutMs");
    assert.equal(nearestKey("lables", LAUNCH_SPEC_KEYS), "labels");
    assert.equal(nearestKey("modes", FILE_INPUT_KEYS), "mode");
  });
  test("suggests nothing when no key is close", () => {
    assert.equal(nearestKey("frobnicate", EXEC_REQUEST_KEYS), undefined);
    assert.equal(nearestKey("x", OP_OPTION_KEYS), undefined);
  });
});

describe("refuseUnknownKeys", () => {
  test("refuses an unknown key with INVALID_REQUEST naming it and the nearest known key", () => {
    const error = refusal(() =>
      refuseUnknownKeys({ argv: ["true"], tiemoutMs: 5 }, EXEC_REQUEST_KEYS, "exec request", "demo"),
    );
    assert.equal(error.code, "INVALID_REQUEST");
    assert.equal(error.provider, "demo");
    assert.match(error.message, /^exec request: unknown key "tiemoutMs" \(did you mean timeoutMs\?\)$/);
    assert.equal(error.details?.field, "tiemoutMs");
    assert.equal(error.details?.nearest, "timeoutMs");
  });
  test("lists the known keys when none is near", () => {
    const error = refusal(() => refuseUnknownKeys({ frobnicate: 1 }, OP_OPTION_KEYS, "options"));
    assert.match(error.message, /unknown key "frobnicate" \(known keys: signal, timeoutMs\)/);
    assert.equal(error.details?.nearest, undefined);
  });
  test("passes an object with known keys only, and never looks inside its values", () => {
    refuseUnknownKeys({ argv: ["x"], env: { ANYTHING: "1" } }, EXEC_REQUEST_KEYS, "exec request");
    refuseUnknownKeys({}, EXEC_REQUEST_KEYS, "exec request");
  });
});

test("keyList keeps the keys of its shape, frozen", () => {
  const keys = keyList<{ a?: number; b: string }>({ a: true, b: true });
  assert.deepEqual([...keys], ["a", "b"]);
  assert.ok(Object.isFrozen(keys));
});

test("describeValue names the type, and the value of a primitive", () => {
  assert.equal(describeValue("1000"), 'string "1000"');
  assert.equal(describeValue(-1), "number -1");
  assert.equal(describeValue(true), "boolean true");
  assert.equal(describeValue(null), "null");
  assert.equal(describeValue([1]), "array");
  assert.equal(describeValue({}), "object");
});
