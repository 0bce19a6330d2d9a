// What the SDK's errors mean. The errors are built in the shape the SDK gives
// them (its class name as `name`, agentd's or the API's text as `message`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { isDirectoryError, isNotFound, isSandboxNotFound, mapMicrosandboxError } from "./errors.js";

function sdkError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

const site = { operation: "exec", sandboxId: "sandport-1" };

test("SDK error classes map to codes, the vendor error kept as cause", () => {
  const cases: [string, string, string, boolean][] = [
    ["SandboxNotFoundError", "sandbox not found: GET /v1/sandboxes/by-name/:name", "NOT_FOUND", false],
    ["SandboxReplacedError", "sandbox replaced", "NOT_FOUND", false],
    ["SandboxAlreadyExistsError", "sandbox already exists: POST /v1/sandboxes", "INVALID_REQUEST", false],
    ["InvalidConfigError", "invalid config: image must be an OCI reference", "INVALID_REQUEST", false],
    ["SandboxNotRunningError", "sandbox not running", "INVALID_REQUEST", false],
    ["UnsupportedError", "unsupported: port publishing on cloud", "UNSUPPORTED", false],
    ["HttpError", "http error: error sending request for url", "PROVIDER_UNAVAILABLE", true],
    ["RuntimeError", "runtime error: cloud agent websocket: 503", "PROVIDER_UNAVAILABLE", true],
    ["ImageError", "image error: registry error", "PROVIDER_UNAVAILABLE", true],
    ["LibkrunfwNotFoundError", "libkrunfw not found", "SDK_UNAVAILABLE", false],
  ];
  for (const [name, message, code, retryable] of cases) {
    const vendor = sdkError(name, message);
    const mapped = mapMicrosandboxError(vendor, site);
    assert.equal(mapped.code, code, name);
    assert.equal(mapped.retryable, retryable, `${name} retryable`);
    assert.equal(mapped.cause, vendor);
    assert.equal(mapped.details.vendorError, name);
    assert.match(mapped.message, /^microsandbox exec failed \(sandbox sandport-1\): /);
  }
});

test("CloudHttpError goes by the status in its message", () => {
  const mapped = (status: number) =>
    mapMicrosandboxError(sdkError("CloudHttpError", `cloud HTTP ${status}: POST /v1/sandboxes: no`), site);
  assert.deepEqual(
    [401, 403, 409, 429, 500, 503].map((status) => {
      const error = mapped(status);
      return `${error.details.status} ${error.code}${error.retryable ? " retryable" : ""}`;
    }),
    [
      "401 AUTH",
      "403 AUTH",
      "409 INVALID_REQUEST",
      "429 RATE_LIMITED retryable",
      "500 PROVIDER_UNAVAILABLE retryable",
      "503 PROVIDER_UNAVAILABLE retryable",
    ],
  );
});

test("agentd's errno decides guest file and exec failures", () => {
  const fs = (message: string) => sdkError("SandboxFsOpsError", `sandbox fs error: ${message}`);
  assert.equal(mapMicrosandboxError(fs("open: No such file or directory (os error 2)"), site).code, "NOT_FOUND");
  assert.equal(mapMicrosandboxError(fs("remove: Is a directory (os error 21)"), site).code, "INVALID_REQUEST");
  assert.equal(
    mapMicrosandboxError(fs("readdir: opendir: Not a directory (os error 20)"), site).code,
    "INVALID_REQUEST",
  );
  assert.equal(mapMicrosandboxError(fs("open: Permission denied (os error 13)"), site).code, "UNEXPECTED");
  assert.equal(mapMicrosandboxError(fs("something else"), site).code, "UNEXPECTED");
  // agentd's core.exec.failed reaches JavaScript unmapped, as a plain Error.
  const failed = new Error('[ExecFailed] exec failed: spawn "nope": No such file or directory (os error 2)');
  assert.equal(mapMicrosandboxError(failed, site).code, "NOT_FOUND");
  const badArgs = new Error('[ExecFailed] exec failed: spawn "x": Argument list too long (os error 7)');
  assert.equal(mapMicrosandboxError(badArgs, site).code, "UNEXPECTED");
  assert.equal(isNotFound(fs("open: No such file or directory (os error 2)")), true);
  assert.equal(isDirectoryError(fs("remove: Is a directory (os error 21)")), true);
  assert.equal(isDirectoryError(fs("open: No such file or directory (os error 2)")), false);
});

test("only not-found means absent; a sandbox's not-found is told from a file's", () => {
  assert.equal(isSandboxNotFound(sdkError("SandboxNotFoundError", "sandbox not found")), true);
  assert.equal(isSandboxNotFound(sdkError("SandboxFsOpsError", "open: No such file or directory (os error 2)")), false);
  assert.equal(isNotFound(sdkError("CloudHttpError", "cloud HTTP 503: GET /v1/sandboxes/by-name/:name")), false);
  assert.equal(isNotFound(sdkError("HttpError", "http error: error sending request")), false);
});

test("what a failed create says: was it sent, may it have created anyway", () => {
  const refused = mapMicrosandboxError(
    sdkError("CloudHttpError", "cloud HTTP 400: POST /v1/sandboxes: bad image"),
    site,
  );
  assert.deepEqual([refused.code, refused.details.sent], ["INVALID_REQUEST", true], "a refused request was sent");
  assert.equal(mapMicrosandboxError.outcomeUnknown(refused), false);
  assert.equal(
    mapMicrosandboxError.outcomeUnknown(sdkError("CloudHttpError", "cloud HTTP 503: POST /v1/sandboxes")),
    false,
  );
  assert.equal(
    mapMicrosandboxError.outcomeUnknown(sdkError("CloudHttpError", "cloud HTTP 502: POST /v1/sandboxes")),
    true,
  );
  // The SDK reports a refused connection and one reset after the request left alike: the outcome stays unknown.
  const sendFailed = sdkError(
    "HttpError",
    "http error: error sending request for url (http://127.0.0.1:9/v1/sandboxes)",
  );
  assert.equal(mapMicrosandboxError.outcomeUnknown(sendFailed), true);
  assert.equal(mapMicrosandboxError(sendFailed, site).details.sent, undefined);
});

test("a broken connection to the agent or the API is PROVIDER_UNAVAILABLE, not UNEXPECTED", () => {
  // As the SDK raises them when a connection is lost: the agent client's plain Errors, and the
  // cloud client's error for a body cut short.
  const lost = [
    new Error("[AgentClient] agent client error: reader closed before response for id=1"),
    new Error("[AgentClient] agent client error: protocol: io error: Trying to work with closed connection"),
    sdkError("SandboxFsOpsError", "sandbox fs error: channel closed before response"),
    sdkError(
      "CustomError",
      "GET /v1/sandboxes/by-name/:name: failed to decode body: error decoding response body for url (http://127.0.0.1:1/v1/sandboxes/by-name/sandport-1)",
    ),
  ];
  for (const error of lost) {
    const mapped = mapMicrosandboxError(error, site);
    assert.deepEqual([mapped.code, mapped.retryable], ["PROVIDER_UNAVAILABLE", true], error.message);
    assert.equal(mapped.cause, error);
  }
  // The agent client's other errors are not guessed at.
  assert.equal(mapMicrosandboxError(new Error("[AgentClient] agent client error: bad frame"), site).code, "UNEXPECTED");
});

test("an agent WebSocket handshake refused over HTTP goes by its status: a 429 is RATE_LIMITED", () => {
  const refused = (status: string) =>
    mapMicrosandboxError(sdkError("RuntimeError", `runtime error: cloud agent websocket: HTTP error: ${status}`), site);
  assert.deepEqual(
    ["429 Too Many Requests", "503 Service Unavailable", "500 Internal Server Error"].map((status) => {
      const error = refused(status);
      return `${error.code}${error.retryable ? " retryable" : ""}`;
    }),
    ["RATE_LIMITED retryable", "PROVIDER_UNAVAILABLE retryable", "PROVIDER_UNAVAILABLE retryable"],
  );
});
