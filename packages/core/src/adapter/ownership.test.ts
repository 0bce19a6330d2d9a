import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "../port/reserved-labels.js";
import { validateCommandRef, validateSessionId } from "../validation/commands.js";
import { validateLabelQuery } from "../validation/labels.js";
import { callerLabels, isOwnedBy, matchesLabels, metadataCodec, ownerLabels, validateOwner } from "./ownership.js";

const invalid = (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST");

describe("ownership codec", () => {
  test("a launch stores the owner and launch key beside the caller's labels; lookups read them back", () => {
    const stored = metadataCodec.encode("ci", { job: "42" }, "key-1");
    assert.deepEqual(stored, { job: "42", [OWNER_LABEL]: "ci", [LAUNCH_KEY_LABEL]: "key-1" });
    const labels = metadataCodec.decode(stored) as Record<string, string>;
    assert.equal(isOwnedBy(labels, "ci"), true);
    assert.equal(isOwnedBy(labels, "other"), false);
    assert.equal(isOwnedBy({}, "ci"), false);
    assert.equal(matchesLabels(labels, { job: "42", [LAUNCH_KEY_LABEL]: "key-1" }), true);
    assert.equal(matchesLabels(labels, { job: "43" }), false);
    assert.equal(matchesLabels(labels, { toString: "x" } as Record<string, string>), false, "own keys only");
    assert.deepEqual(callerLabels(labels), { job: "42" });
    assert.deepEqual(ownerLabels("ci", undefined, "k"), { [OWNER_LABEL]: "ci", [LAUNCH_KEY_LABEL]: "k" });
  });

  test("one owner rule for every runtime", () => {
    assert.equal(validateOwner(undefined), "sandport");
    assert.equal(validateOwner("team.ci-1"), "team.ci-1");
    for (const bad of ["", "has space", "x".repeat(65), 7]) assert.throws(() => validateOwner(bad), invalid);
  });
});

describe("port rules decided once", () => {
  test("session ids: 1-128 of [A-Za-z0-9._-], not . or ..", () => {
    for (const good of ["job-42", "a.b_c", "x".repeat(128)]) assert.equal(validateSessionId(good), good);
    for (const bad of ["job 42", "", ".", "..", "a/b", "x".repeat(129), 42]) {
      assert.throws(() => validateSessionId(bad), invalid, String(bad));
    }
    assert.deepEqual(validateCommandRef({ sessionId: "s", commandId: "c", extra: 1 }), {
      sessionId: "s",
      commandId: "c",
    });
    assert.throws(() => validateCommandRef({ sessionId: "s", commandId: "" }), invalid);
  });

  test("findByLabels queries: an object ({} for all, reserved keys allowed); nothing else", () => {
    assert.deepEqual(validateLabelQuery({}), {});
    assert.deepEqual(validateLabelQuery({ [LAUNCH_KEY_LABEL]: "k" }), { [LAUNCH_KEY_LABEL]: "k" });
    for (const bad of [undefined, null, "job=1", ["a"]]) assert.throws(() => validateLabelQuery(bad), invalid);
  });
});
