// checkHandle and handleRecipe: a handle of this provider with an id that can name one of its sandboxes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { checkHandle, handleRecipe } from "./check-handle.js";

function refusal(check: () => unknown): SandportError {
  try {
    check();
  } catch (error) {
    assert.ok(SandportError.isInstance(error));
    return error;
  }
  return assert.fail("expected a refusal");
}

const handles = handleRecipe("acme", { valid: /^sb-[a-z0-9]{1,8}$/, refusal: "an acme id is sb- and 1-8 of [a-z0-9]" });

test("checkHandle refuses what is not a handle of this provider", () => {
  assert.equal(checkHandle({ id: "x", provider: "acme" }, "acme", "stop"), "x");
  assert.match(
    refusal(() => checkHandle({ id: "" }, "acme", "stop")).message,
    /stop needs a sandbox handle with an id/,
  );
  const other = refusal(() => checkHandle({ id: "x", provider: "other" }, "acme", "stop"));
  assert.equal(other.details.handleProvider, "other");
});

test("validId refuses an id the rule does not accept, INVALID_REQUEST on field id, with the rule's message", () => {
  assert.equal(handles.validId("sb-abc"), "sb-abc");
  for (const id of ["..", "sb-../x", "sb-ABC", "sb-123456789", 7, undefined]) {
    const error = refusal(() => handles.validId(id));
    assert.equal(error.code, "INVALID_REQUEST");
    assert.equal(error.provider, "acme");
    assert.equal(error.message, "an acme id is sb- and 1-8 of [a-z0-9]");
    assert.deepEqual(error.details, { field: "id" });
  }
  const byTest = handleRecipe("acme", { valid: (id) => id !== "." && id.length < 3, refusal: "short" });
  assert.equal(byTest.validId("ab"), "ab");
  assert.equal(refusal(() => byTest.validId(".")).message, "short");
});

test("idOf checks the handle first, then its id", () => {
  assert.equal(handles.idOf({ id: "sb-1", provider: "acme", labels: {} }, "destroy"), "sb-1");
  assert.match(refusal(() => handles.idOf({ id: "sb-1", provider: "e2b" }, "destroy")).message, /provider "e2b"/);
  assert.equal(refusal(() => handles.idOf({ id: "/etc", provider: "acme" }, "destroy")).details.field, "id");
});

test("toHandle keeps the caller's labels and a valid creation time, from a Date, a string or a number", () => {
  const labels = { team: "a", "sandport.owner": "ci" };
  const iso = "2026-01-02T03:04:05.000Z";
  for (const createdAt of [new Date(iso), iso, Date.parse(iso)]) {
    const handle = handles.toHandle("sb-1", labels, createdAt);
    assert.deepEqual(handle, { id: "sb-1", provider: "acme", labels: { team: "a" }, createdAt: iso });
    assert.ok(Object.isFrozen(handle.labels));
  }
  for (const createdAt of [undefined, null, "not a date", Number.NaN]) {
    assert.deepEqual(handles.toHandle("sb-1", undefined, createdAt), { id: "sb-1", provider: "acme", labels: {} });
  }
});
