// The vendor error table: the real SDKs' error classes (newest and oldest) map
// to Sandport codes by HTTP status where Daytona answered, by class where it
// did not, with the vendor error as cause.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as newest from "@daytonaio/sdk";
import { SandportError } from "@sandport/core";
import * as oldest from "daytona-sdk-legacy";
import { isNotFound, mapDaytonaError, statusOf, wasRefused } from "./errors.js";

const site = { operation: "test", sandboxId: "sbx1" };

for (const [label, sdk] of [
  ["0.218", newest],
  ["0.180", oldest],
] as const) {
  test(`SDK ${label}: errors map to SandportError codes, keeping the vendor error as cause`, () => {
    const cases: [unknown, string, boolean][] = [
      [new sdk.DaytonaAuthenticationError("Unauthorized", 401), "AUTH", false],
      [new sdk.DaytonaAuthenticationError("Authentication credentials not found"), "AUTH", false],
      [new sdk.DaytonaNotFoundError("Sandbox not found", 404), "NOT_FOUND", false],
      [new sdk.DaytonaRateLimitError("slow down", 429), "RATE_LIMITED", true],
      [new sdk.DaytonaConflictError("state change in progress", 409), "INVALID_REQUEST", false],
      [new sdk.DaytonaValidationError("bad", 400), "INVALID_REQUEST", false],
      [
        new sdk.DaytonaTimeoutError("Sandbox failed to become ready within the timeout period"),
        "DEADLINE_EXCEEDED",
        true,
      ],
      [new sdk.DaytonaTimeoutError("command execution timeout", 408), "DEADLINE_EXCEEDED", true],
      [new sdk.DaytonaError("bad gateway", 502), "PROVIDER_UNAVAILABLE", true],
      [new sdk.DaytonaError("Sandbox sbx1 failed to start with status: error"), "PROVIDER_UNAVAILABLE", false],
      [new sdk.DaytonaConnectionError("socket hang up"), "PROVIDER_UNAVAILABLE", true],
      [new Error("Unexpected server response: 404"), "NOT_FOUND", false],
      [new Error("something odd"), "UNEXPECTED", false],
    ];
    for (const [vendor, code, retryable] of cases) {
      const mapped = mapDaytonaError(vendor, site);
      assert.equal(mapped.code, code, `${String(vendor)} → ${mapped.code}`);
      assert.equal(mapped.retryable, retryable, `${String(vendor)} retryable`);
      assert.equal(mapped.cause, vendor);
      assert.equal(mapped.provider, "daytona");
      assert.match(mapped.message, /^daytona test failed \(sandbox sbx1\): /);
    }
  });
}

test("0.218's own classes: a 504 is unavailable, not a deadline; Retry-After is kept", () => {
  const gateway = new newest.DaytonaTimeoutError("gateway timeout", 504);
  assert.equal(mapDaytonaError(gateway, site).code, "PROVIDER_UNAVAILABLE");
  const limited = new newest.DaytonaRateLimitError("slow down", 429, { "retry-after": "2" } as never);
  assert.equal(mapDaytonaError(limited, site).retryAfterMs, 2_000);
  assert.equal(mapDaytonaError(new newest.DaytonaConnectionTimeoutError("timed out"), site).code, "DEADLINE_EXCEEDED");
});

test("helpers: not-found, the answered status, and refusals that are safe to repeat", () => {
  assert.equal(isNotFound(new newest.DaytonaNotFoundError("x", 404)), true);
  assert.equal(isNotFound(new SandportError({ code: "NOT_FOUND", message: "x" })), true);
  assert.equal(isNotFound(new newest.DaytonaRateLimitError("x", 429)), false);
  const mapped = mapDaytonaError(new newest.DaytonaError("x", 503), site);
  assert.equal(statusOf(mapped), 503);
  assert.equal(wasRefused(mapped), true);
  assert.equal(wasRefused(new newest.DaytonaRateLimitError("x", 429)), true);
  assert.equal(wasRefused(new newest.DaytonaError("x", 502)), false, "a 502 may come after the work was done");
  const original = new SandportError({ code: "ABORTED", message: "stop" });
  assert.equal(mapDaytonaError(original, site), original);
});

for (const [label, sdk] of [
  ["0.218", newest],
  ["0.180", oldest],
] as const) {
  test(`SDK ${label}: what a failed create says: was it sent, may it have created anyway`, () => {
    const refused = mapDaytonaError(new sdk.DaytonaValidationError("bad snapshot", 400), { operation: "launch" });
    assert.deepEqual([refused.code, refused.details.sent], ["INVALID_REQUEST", true], "a refused request was sent");
    assert.equal(mapDaytonaError.outcomeUnknown(refused), false);
    assert.equal(mapDaytonaError.outcomeUnknown(new sdk.DaytonaError("unavailable", 503)), false);
    assert.equal(mapDaytonaError.outcomeUnknown(new sdk.DaytonaError("bad gateway", 502)), true);
    assert.equal(
      mapDaytonaError.outcomeUnknown(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })),
      true,
    );
    const refusedConnection = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    const unreachable = mapDaytonaError(refusedConnection, { operation: "launch" });
    assert.deepEqual([unreachable.code, unreachable.details.sent], ["PROVIDER_UNAVAILABLE", false]);
    assert.match(unreachable.message, /unreachable/);
    assert.equal(mapDaytonaError.outcomeUnknown(refusedConnection), false);
  });
}
