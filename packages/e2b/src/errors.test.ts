// The vendor error table: the real e2b SDK's error classes, and the shapes its
// transport errors take, map to Sandport codes with the vendor error as cause.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "@sandport/core";
import {
  AuthenticationError,
  FileNotFoundError,
  InvalidArgumentError,
  NotEnoughSpaceError,
  NotFoundError,
  RateLimitError,
  SandboxError,
  SandboxNotFoundError,
  ServiceBusyError,
  TemplateError,
  TimeoutError,
} from "e2b";
import { isNotFound, isSandboxNotFound, mapE2BError } from "./errors.js";

const site = { operation: "test", sandboxId: "sbx1" };

test("SDK errors map to SandportError codes, keeping the vendor error as cause", () => {
  const cases: [unknown, string, boolean][] = [
    [new AuthenticationError("Unauthorized"), "AUTH", false],
    [new SandboxError("403: forbidden"), "AUTH", false],
    [new SandboxNotFoundError("Sandbox sbx1 not found"), "NOT_FOUND", false],
    [new FileNotFoundError("file not found"), "NOT_FOUND", false],
    [new NotFoundError("gone"), "NOT_FOUND", false],
    [new SandboxError("404: nope"), "NOT_FOUND", false],
    [new RateLimitError("Rate limit exceeded"), "RATE_LIMITED", true],
    [new SandboxError("502: bad gateway"), "PROVIDER_UNAVAILABLE", true],
    [new SandboxError("2: [unknown] HTTP 500"), "PROVIDER_UNAVAILABLE", true],
    [new TimeoutError("[deadline_exceeded] the operation timed out"), "DEADLINE_EXCEEDED", true],
    [
      Object.assign(new TypeError("fetch failed"), { cause: new Error("other side closed") }),
      "PROVIDER_UNAVAILABLE",
      true,
    ],
    [new InvalidArgumentError("bad path"), "INVALID_REQUEST", false],
    [new TemplateError("old template"), "UNSUPPORTED", false],
    [new NotEnoughSpaceError("disk full"), "PROVIDER_UNAVAILABLE", false],
    [new Error("something odd"), "UNEXPECTED", false],
  ];
  for (const [vendor, code, retryable] of cases) {
    const mapped = mapE2BError(vendor, site);
    assert.equal(mapped.code, code, `${String(vendor)} → ${mapped.code}`);
    assert.equal(mapped.retryable, retryable, `${String(vendor)} retryable`);
    assert.equal(mapped.cause, vendor);
    assert.equal(mapped.provider, "e2b");
    assert.equal(mapped.details.sandboxId, "sbx1");
    assert.match(mapped.message, /^e2b test failed \(sandbox sbx1\): /);
  }
});

test("a SandportError passes through unchanged", () => {
  const original = new SandportError({ code: "ABORTED", message: "stop" });
  assert.equal(mapE2BError(original, site), original);
});

test("not-found: any missing thing, and the SDK's sandbox-unavailable class apart", () => {
  assert.equal(isNotFound(new FileNotFoundError("x")), true);
  assert.equal(isNotFound(new SandboxError("404: nope")), true);
  assert.equal(isNotFound(new SandportError({ code: "NOT_FOUND", message: "x" })), true);
  assert.equal(isNotFound(new RateLimitError("x")), false);
  assert.equal(isSandboxNotFound(new SandboxNotFoundError("x")), true);
  assert.equal(isSandboxNotFound(new FileNotFoundError("x")), false);
});

test("what a failed create says: was it sent, may it have created anyway", () => {
  const refused = mapE2BError(new SandboxError("400: template not found"), { operation: "launch" });
  assert.deepEqual([refused.code, refused.details.sent], ["INVALID_REQUEST", true], "a refused request was sent");
  assert.equal(mapE2BError.outcomeUnknown(refused), false);
  assert.equal(mapE2BError.outcomeUnknown(new ServiceBusyError("Service temporarily unavailable")), false, "503");
  assert.equal(mapE2BError.outcomeUnknown(new SandboxError("502: bad gateway")), true);
  assert.equal(mapE2BError.outcomeUnknown(new TimeoutError("Request timed out")), true);
  const reset = new TypeError("fetch failed", {
    cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
  });
  assert.equal(mapE2BError.outcomeUnknown(reset), true);
  const refusedConnection = new TypeError("fetch failed", {
    cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }),
  });
  const unreachable = mapE2BError(refusedConnection, { operation: "launch" });
  assert.deepEqual([unreachable.code, unreachable.details.sent], ["PROVIDER_UNAVAILABLE", false]);
  assert.match(unreachable.message, /unreachable/);
  assert.equal(mapE2BError.outcomeUnknown(refusedConnection), false);
});
