import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { toSandportError } from "./factories.js";
import { SandportError } from "./sandport-error.js";

describe("SandportError", () => {
  test("carries code, provider, retryable default and cause", () => {
    const cause = new Error("HTTP 503");
    const error = new SandportError({ code: "PROVIDER_UNAVAILABLE", provider: "e2b", message: "down", cause });
    assert.equal(error.code, "PROVIDER_UNAVAILABLE");
    assert.equal(error.provider, "e2b");
    assert.equal(error.retryable, true);
    assert.equal(error.cause, cause);
    assert.equal(new SandportError({ code: "AUTH", message: "no" }).retryable, false);
    assert.equal(new SandportError({ code: "AUTH", message: "no" }).provider, "sandport");
  });

  test("isInstance recognises a copy from another module instance by its marker", () => {
    const foreignCopy = new (class extends Error {})("x");
    Object.defineProperty(foreignCopy, Symbol.for("sandport.error"), { value: true });
    assert.equal(SandportError.isInstance(foreignCopy), true);
    assert.equal(SandportError.isInstance(new Error("x")), false);
    assert.equal(SandportError.isInstance(null), false);
  });

  test("the marker stays out of JSON", () => {
    const error = new SandportError({ code: "NOT_FOUND", message: "gone" });
    assert.equal(JSON.stringify(Object.getOwnPropertySymbols(error).map(String)), '["Symbol(sandport.error)"]');
    assert.doesNotMatch(JSON.stringify(error), /sandport\.error/);
  });

  test("toSandportError passes ours through and wraps the rest as UNEXPECTED", () => {
    const ours = new SandportError({ code: "NOT_FOUND", message: "gone" });
    assert.equal(toSandportError(ours), ours);
    const plain = new TypeError("boom");
    const wrapped = toSandportError(plain, "local");
    assert.equal(wrapped.code, "UNEXPECTED");
    assert.equal(wrapped.cause, plain);
    assert.equal(wrapped.provider, "local");
  });
});
