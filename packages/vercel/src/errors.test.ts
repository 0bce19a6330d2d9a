// What the SDK's errors become: APIError by its HTTP status (its `name` is plain `Error`),
// Retry-After kept, a stopping session retryable, stream errors and lost requests typed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { APIError, StreamError } from "@vercel/sandbox";
import { isAlreadyExists, isNotFound, mapVercelError } from "./errors.js";
import { guardedFetch } from "./transport.js";

const site = { operation: "exec", sandboxId: "sandport-x-1" };

/** An APIError as the SDK builds it from an answer. */
function apiError(status: number, body: object, headers: Record<string, string> = {}): APIError<unknown> {
  const response = new Response(JSON.stringify(body), { status, headers });
  return new APIError(response, { message: `Status code ${status} is not ok`, json: body });
}

test("APIError goes by its status; the SDK error is the cause and the site is named", () => {
  const cases: [number, string, boolean][] = [
    [400, "INVALID_REQUEST", false],
    [403, "AUTH", false],
    [404, "NOT_FOUND", false],
    [422, "PROVIDER_UNAVAILABLE", true],
    [429, "RATE_LIMITED", true],
    [500, "PROVIDER_UNAVAILABLE", true],
  ];
  for (const [status, code, retryable] of cases) {
    const error = apiError(status, { error: { code: "x", message: "m" } });
    const mapped = mapVercelError(error, site);
    assert.deepEqual([mapped.code, mapped.retryable], [code, retryable], String(status));
    assert.equal(mapped.cause, error);
    assert.equal(mapped.details.status, status);
    assert.equal(mapped.details.sandboxId, "sandport-x-1");
  }
  const limited = mapVercelError(apiError(429, {}, { "retry-after": "7" }), site);
  assert.equal(limited.retryAfterMs, 7_000);
  assert.equal(isNotFound(apiError(404, {})), true);
  assert.equal(isNotFound(apiError(410, {})), false);
});

test("a stream error and a lost unrepeatable request are unknown outcomes, never retried", async () => {
  const stream = mapVercelError(new StreamError("sandbox_stopped", "Sandbox has stopped", "sbx_1"), site);
  assert.deepEqual([stream.code, stream.retryable], ["PROVIDER_UNAVAILABLE", false]);
  const lost = await guardedFetch(async () => {
    throw new TypeError("fetch failed");
  })("https://vercel.com/api/v3/sandboxes", { method: "POST" }).catch((error: unknown) => error);
  const mapped = mapVercelError(lost, { operation: "launch" });
  assert.deepEqual([mapped.code, mapped.retryable], ["PROVIDER_UNAVAILABLE", false]);
  const dropped = mapVercelError(new TypeError("fetch failed"), site);
  assert.deepEqual([dropped.code, dropped.retryable], ["PROVIDER_UNAVAILABLE", true], "a dropped read is retryable");
});

test("a taken name or path is told apart from other 400s", () => {
  assert.equal(
    isAlreadyExists(
      new APIError(new Response("", { status: 400 }), {
        message: "Status code 400 is not ok: A sandbox with the name 'x' already exists",
      }),
    ),
    true,
  );
  assert.equal(isAlreadyExists(apiError(400, {})), false);
  assert.equal(isAlreadyExists(new Error("already exists")), false);
});

test("what a failed create says: was it sent, may it have created anyway", async () => {
  const refused = mapVercelError(apiError(400, { error: { code: "bad_request", message: "bad image" } }), site);
  assert.deepEqual([refused.code, refused.details.sent], ["INVALID_REQUEST", true], "a refused request was sent");
  assert.equal(mapVercelError.outcomeUnknown(refused), false);
  assert.equal(mapVercelError.outcomeUnknown(apiError(503, {})), false);
  assert.equal(mapVercelError.outcomeUnknown(apiError(502, {})), true);
  // A create whose connection reset after it left: the guarded fetch says its outcome is unknown.
  const reset = Object.assign(new TypeError("fetch failed"), {
    cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
  });
  const lost = await guardedFetch(() => Promise.reject(reset))("https://vercel.test/v3/sandboxes", {
    method: "POST",
  }).catch((error: unknown) => error);
  assert.equal(mapVercelError.outcomeUnknown(lost), true);
  // One that never connected sent nothing: the guarded fetch passes it on as it is.
  const refusedConnection = Object.assign(new TypeError("fetch failed"), {
    cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }),
  });
  const never = await guardedFetch(() => Promise.reject(refusedConnection))("https://vercel.test/v3/sandboxes", {
    method: "POST",
  }).catch((error: unknown) => error);
  assert.equal(never, refusedConnection);
  const unreachable = mapVercelError(never, site);
  assert.deepEqual([unreachable.code, unreachable.details.sent], ["PROVIDER_UNAVAILABLE", false]);
  assert.match(unreachable.message, /unreachable/);
  assert.equal(mapVercelError.outcomeUnknown(never), false);
});
