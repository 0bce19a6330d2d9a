import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { createErrorMapper } from "./error-mapper.js";
import { httpStatusOf, isConnectionLost, retryAfterMs } from "./http-errors.js";

class VendorError extends Error {
  constructor(
    name: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = name;
  }
}

const map = createErrorMapper({
  provider: "acme",
  byName: { AcmeNotFound: "NOT_FOUND", AcmeBusy: { code: "PROVIDER_UNAVAILABLE", retryable: false } },
});

describe("createErrorMapper", () => {
  test("vendor names first, then the HTTP status, then dropped connections, else UNEXPECTED", () => {
    const site = { operation: "readFile", sandboxId: "sb-1", path: "a.txt" };
    const cases: [unknown, string, boolean][] = [
      [new VendorError("AcmeNotFound", "gone", 500), "NOT_FOUND", false],
      [new VendorError("AcmeBusy", "busy"), "PROVIDER_UNAVAILABLE", false],
      [new VendorError("Other", "denied", 401), "AUTH", false],
      [new VendorError("Other", "missing", 404), "NOT_FOUND", false],
      [new VendorError("Other", "slow down", 429), "RATE_LIMITED", true],
      [new VendorError("Other", "bad", 422), "INVALID_REQUEST", false],
      [new VendorError("Other", "oops", 502), "PROVIDER_UNAVAILABLE", true],
      [Object.assign(new Error("request failed"), { response: { status: 503 } }), "PROVIDER_UNAVAILABLE", true],
      [new Error("fetch failed", { cause: new Error("socket hang up") }), "PROVIDER_UNAVAILABLE", true],
      [new Error("something else"), "UNEXPECTED", false],
    ];
    for (const [vendor, code, retryable] of cases) {
      const error = map(vendor, site);
      assert.equal(error.code, code, String(vendor));
      assert.equal(error.retryable, retryable, String(vendor));
      assert.equal(error.cause, vendor);
      assert.equal(error.details.sandboxId, "sb-1");
      assert.match(error.message, /^acme readFile failed \(sandbox sb-1, a\.txt\)/);
    }
  });

  test("a SandportError passes through unchanged", () => {
    const original = new SandportError({ code: "ABORTED", message: "stop" });
    assert.equal(map(original, { operation: "exec" }), original);
  });

  test("status and connection helpers", () => {
    assert.equal(httpStatusOf(new Error("503: unavailable")), 503);
    assert.equal(httpStatusOf(new Error("[unavailable] HTTP 502")), 502);
    assert.equal(httpStatusOf({ statusCode: 404 }), 404);
    assert.equal(httpStatusOf(new Error("no status")), undefined);
    assert.equal(isConnectionLost({ code: "ECONNRESET" }), true);
    assert.equal(isConnectionLost(new Error("bad request")), false);
    assert.equal(retryAfterMs("2"), 2_000);
    assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6_000);
    assert.equal(retryAfterMs("soon"), undefined);
  });
});
