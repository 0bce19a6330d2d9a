import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { createErrorMapper } from "./error-mapper.js";
import { httpStatusOf, isConnectionLost, isUnreachable, retryAfterMs } from "./http-errors.js";

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

  test("a request the provider answered was sent: a refused 400 is INVALID_REQUEST with details.sent true", () => {
    const refused = map(new VendorError("Other", "bad template", 400), { operation: "launch" });
    assert.deepEqual([refused.code, refused.details.sent, refused.details.status], ["INVALID_REQUEST", true, 400]);
    assert.equal(map.outcomeUnknown(refused), false);
  });

  test("an unreachable endpoint: PROVIDER_UNAVAILABLE, nothing sent, outcome known, the message says so", async () => {
    const refusedConnection = new TypeError("fetch failed", {
      cause: new AggregateError([
        Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }),
      ]),
    });
    const error = map(refusedConnection, { operation: "launch" });
    assert.deepEqual([error.code, error.retryable, error.details.sent], ["PROVIDER_UNAVAILABLE", true, false]);
    assert.match(error.message, /endpoint is unreachable, nothing was sent/);
    assert.equal(map.outcomeUnknown(refusedConnection), false);
    assert.equal(map.outcomeUnknown(error), false);
    assert.equal(
      isUnreachable(Object.assign(new Error("getaddrinfo ENOTFOUND nowhere.invalid"), { code: "ENOTFOUND" })),
      true,
    );
    assert.equal(isUnreachable(new Error("read ECONNRESET")), false);
    const blockedPort = await fetch("http://127.0.0.1:9/").catch((error: unknown) => error);
    assert.equal(isUnreachable(blockedPort), true, "fetch refuses a blocked port before it connects");
    assert.equal(map.outcomeUnknown(blockedPort), false);
  });

  test("outcome unknown: a reset after sending, a 5xx other than 503, a deadline; known: 503, 4xx, refusals", () => {
    const reset = new TypeError("fetch failed", {
      cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
    });
    assert.equal(map.outcomeUnknown(reset), true);
    assert.equal(map(reset, { operation: "launch" }).details.sent, undefined, "whether it was sent is not known");
    assert.equal(map.outcomeUnknown(new VendorError("Other", "oops", 502)), true);
    assert.equal(map.outcomeUnknown(new VendorError("Other", "busy", 503)), false);
    assert.equal(map.outcomeUnknown(new VendorError("Other", "denied", 403)), false);
    const timedOut = createErrorMapper({ provider: "acme", byName: { TimeoutError: "DEADLINE_EXCEEDED" } });
    assert.equal(timedOut.outcomeUnknown(new VendorError("TimeoutError", "timed out")), true);
    assert.equal(map.outcomeUnknown(new Error("something else")), true, "unclassified: cannot say");
  });

  test("an adapter's classify can say what its own transport means (a gRPC status number, say)", () => {
    const grpc = createErrorMapper({
      provider: "acme",
      classify: (error) => {
        const code = (error as { code?: unknown }).code;
        if (code === 4) return { code: "DEADLINE_EXCEEDED", retryable: true, outcomeUnknown: true };
        if (code === 3) return { code: "INVALID_REQUEST", sent: true, outcomeUnknown: false };
        return undefined;
      },
    });
    const cut = Object.assign(new Error("deadline"), { code: 4 });
    assert.equal(grpc.outcomeUnknown(cut), true);
    const wrapped = grpc(cut, { operation: "launch" });
    assert.equal(grpc.outcomeUnknown(wrapped), true, "a mapped error is judged by its cause");
    const invalid = grpc(Object.assign(new Error("bad"), { code: 3 }), { operation: "launch" });
    assert.deepEqual(
      [invalid.code, invalid.details.sent, grpc.outcomeUnknown(invalid)],
      ["INVALID_REQUEST", true, false],
    );
    const said = new SandportError({ code: "PROVIDER_UNAVAILABLE", message: "x", details: { outcomeUnknown: false } });
    assert.equal(grpc.outcomeUnknown(said), false, "details.outcomeUnknown, when set, is believed");
  });

  test("isNotFound: a SandportError by its code, a vendor error by what the mapper makes of it", () => {
    const notFound = createErrorMapper({
      provider: "acme",
      byName: { GoneError: { code: "NOT_FOUND", retryable: false } },
    });
    assert.equal(notFound.isNotFound(Object.assign(new Error("gone"), { name: "GoneError" })), true);
    assert.equal(notFound.isNotFound(Object.assign(new Error("missing"), { status: 404 })), true);
    assert.equal(notFound.isNotFound(Object.assign(new Error("busy"), { status: 503 })), false);
    assert.equal(notFound.isNotFound(new SandportError({ code: "NOT_FOUND", provider: "acme", message: "x" })), true);
    assert.equal(notFound.isNotFound(new SandportError({ code: "AUTH", provider: "acme", message: "x" })), false);
  });
});
