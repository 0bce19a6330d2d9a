// The vendor error table: the real freestyle SDK's error classes (an API error
// with its code and status, a transport error) and the aborts of the per-call
// transport map to Sandport codes, with the vendor error as cause.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "@sandport/core";
import { FreestyleApiError, FreestyleTransportError } from "freestyle";
import { CALL_ENDED_CODE, isNotFound, mapFreestyleError } from "./errors.js";

const site = { operation: "test", sandboxId: "vm1" };
const api = (status: number, code: string) => new FreestyleApiError(status, { code, message: `${code} happened` });

test("SDK errors map to SandportError codes, keeping the vendor error as cause", () => {
  const cases: [unknown, string, boolean][] = [
    [api(401, "UNAUTHORIZED"), "AUTH", false],
    [api(403, "FORBIDDEN"), "AUTH", false],
    [api(404, "VM_NOT_FOUND"), "NOT_FOUND", false],
    [api(404, "FILE_NOT_FOUND"), "NOT_FOUND", false],
    [api(404, "SNAPSHOT_NOT_FOUND"), "INVALID_REQUEST", false],
    [api(404, "USER_NOT_FOUND"), "INVALID_REQUEST", false],
    [api(400, "BAD_REQUEST"), "INVALID_REQUEST", false],
    [api(409, "SLUG_TAKEN"), "INVALID_REQUEST", false],
    [api(429, "RATE_LIMITED"), "RATE_LIMITED", true],
    [api(500, "INTERNAL_ERROR"), "PROVIDER_UNAVAILABLE", true],
    [api(503, "SERVICE_UNAVAILABLE"), "PROVIDER_UNAVAILABLE", true],
    [api(507, "BACKGROUND_RESULT_UNSTORABLE"), "OUTPUT_LIMIT", false],
    [api(504, CALL_ENDED_CODE), "DEADLINE_EXCEEDED", true],
    [
      new FreestyleTransportError(new TypeError("fetch failed"), [{ code: "ECONNRESET", syscall: "read" }]),
      "PROVIDER_UNAVAILABLE",
      true,
    ],
    [
      Object.assign(new TypeError("fetch failed"), { cause: new Error("other side closed") }),
      "PROVIDER_UNAVAILABLE",
      true,
    ],
    [new DOMException("The operation was aborted due to timeout", "TimeoutError"), "DEADLINE_EXCEEDED", true],
    [new Error("something odd"), "UNEXPECTED", false],
  ];
  for (const [vendor, code, retryable] of cases) {
    const mapped = mapFreestyleError(vendor, site);
    assert.equal(mapped.code, code, `${String(vendor)} → ${mapped.code}`);
    assert.equal(mapped.retryable, retryable, `${String(vendor)} retryable`);
    assert.equal(mapped.cause, vendor);
    assert.equal(mapped.provider, "freestyle");
    assert.equal(mapped.details.sandboxId, "vm1");
    assert.match(mapped.message, /^freestyle test failed \(sandbox vm1\): /);
  }
  assert.equal(mapFreestyleError(api(404, "VM_NOT_FOUND"), site).details.status, 404);
});

test("a SandportError (a deadline or abort that ended the fetch) passes through unchanged", () => {
  const original = new SandportError({ code: "ABORTED", message: "stop" });
  assert.equal(mapFreestyleError(original, site), original);
});

test("not-found: a missing VM or file, nothing else", () => {
  assert.equal(isNotFound(api(404, "VM_NOT_FOUND")), true);
  assert.equal(isNotFound(api(404, "FILE_NOT_FOUND")), true);
  assert.equal(isNotFound(new SandportError({ code: "NOT_FOUND", message: "x" })), true);
  assert.equal(isNotFound(api(404, "SNAPSHOT_NOT_FOUND")), false);
  assert.equal(isNotFound(api(429, "RATE_LIMITED")), false);
});

test("what a failed create says: was it sent, may it have created anyway", () => {
  const refused = mapFreestyleError(api(400, "BAD_REQUEST"), { operation: "launch" });
  assert.deepEqual([refused.code, refused.details.sent], ["INVALID_REQUEST", true], "a refused request was sent");
  assert.equal(mapFreestyleError.outcomeUnknown(refused), false);
  assert.equal(mapFreestyleError.outcomeUnknown(api(503, "UNAVAILABLE")), false);
  assert.equal(mapFreestyleError.outcomeUnknown(api(502, "BAD_GATEWAY")), true);
  const reset = new FreestyleTransportError(new TypeError("fetch failed"), [{ code: "ECONNRESET", syscall: "read" }]);
  assert.equal(mapFreestyleError.outcomeUnknown(reset), true);
  const refusedConnection = new FreestyleTransportError(new TypeError("fetch failed"), [
    { code: "ECONNREFUSED", syscall: "connect", address: "127.0.0.1", port: 9 },
  ]);
  const unreachable = mapFreestyleError(refusedConnection, { operation: "launch" });
  assert.deepEqual([unreachable.code, unreachable.details.sent], ["PROVIDER_UNAVAILABLE", false]);
  assert.match(unreachable.message, /unreachable/);
  assert.equal(mapFreestyleError.outcomeUnknown(refusedConnection), false);
});
