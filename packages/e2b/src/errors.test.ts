import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "@sandport/core";
import { isConnectionLost, mapE2BError, statusOf } from "./errors.js";
import { FakeSdkError, sdkErrors } from "./testing/fake-e2b.js";

const context = { operation: "test", sandboxId: "sbx1" };

test("SDK errors map to SandportError codes, keeping the vendor error as cause", () => {
  const cases: [unknown, string, boolean][] = [
    [sdkErrors.auth(), "AUTH", false],
    [sdkErrors.forbidden(), "AUTH", false],
    [new FakeSdkError("SandboxError", "401: nope", 401), "AUTH", false],
    [sdkErrors.sandboxNotFound(), "NOT_FOUND", false],
    [sdkErrors.fileNotFound(), "NOT_FOUND", false],
    [new FakeSdkError("NotFoundError", "gone"), "NOT_FOUND", false],
    [new FakeSdkError("SandboxError", "404: nope", 404), "NOT_FOUND", false],
    [sdkErrors.rateLimited(), "RATE_LIMITED", true],
    [sdkErrors.serviceBusy(), "PROVIDER_UNAVAILABLE", true],
    [sdkErrors.serverError(500), "PROVIDER_UNAVAILABLE", true],
    [sdkErrors.serverError(502), "PROVIDER_UNAVAILABLE", true],
    [new FakeSdkError("SandboxError", "2: [unknown] HTTP 500"), "PROVIDER_UNAVAILABLE", true],
    [new FakeSdkError("SandboxError", "503: busy"), "PROVIDER_UNAVAILABLE", true],
    [sdkErrors.timeout(), "DEADLINE_EXCEEDED", true],
    [sdkErrors.connectionLost(), "PROVIDER_UNAVAILABLE", true],
    [new FakeSdkError("InvalidArgumentError", "bad path"), "INVALID_REQUEST", false],
    [new FakeSdkError("TemplateError", "old template"), "UNSUPPORTED", false],
    [new Error("something odd"), "UNEXPECTED", false],
  ];
  for (const [vendor, code, retryable] of cases) {
    const mapped = mapE2BError(vendor, context);
    assert.equal(mapped.code, code, `${String(vendor)} → ${mapped.code}`);
    assert.equal(mapped.retryable, retryable, `${String(vendor)} retryable`);
    assert.equal(mapped.cause, vendor);
    assert.equal(mapped.provider, "e2b");
    assert.equal(mapped.details.sandboxId, "sbx1");
  }
});

test("a SandportError passes through unchanged", () => {
  const original = new SandportError({ code: "ABORTED", message: "stop" });
  assert.equal(mapE2BError(original, context), original);
});

test("statusOf reads statusCode, envd's '503: ' prefix and connect's 'HTTP 503'", () => {
  assert.equal(statusOf(sdkErrors.rateLimited()), 429);
  assert.equal(statusOf(new Error("503: unavailable")), 503);
  assert.equal(statusOf(new Error("[unavailable] HTTP 504")), 504);
  assert.equal(statusOf(new Error("nothing")), undefined);
});

test("dropped connections are recognised through causes", () => {
  assert.equal(isConnectionLost(sdkErrors.connectionLost()), true);
  assert.equal(
    isConnectionLost(new Error("x", { cause: Object.assign(new Error("y"), { code: "ECONNRESET" }) })),
    true,
  );
  assert.equal(isConnectionLost(new Error("404: nope")), false);
});
