// How the modal SDK's errors map onto codes: its error classes by name, the
// gRPC status of a nice-grpc ClientError, and its plain deadline errors.
import assert from "node:assert/strict";
import { test } from "node:test";
import { mapModalError } from "./errors.js";

/** A nice-grpc ClientError as the SDK passes it through. */
function clientError(code: number): Error {
  return Object.assign(new Error(`/modal.client.ModalClient/X status ${code}`), { name: "ClientError", code });
}

/** An error of one of the SDK's classes. */
function named(name: string): Error {
  return Object.assign(new Error(name), { name });
}

test("gRPC status codes", () => {
  const expected: Record<number, [string, boolean]> = {
    1: ["PROVIDER_UNAVAILABLE", true],
    3: ["INVALID_REQUEST", false],
    4: ["DEADLINE_EXCEEDED", true],
    5: ["NOT_FOUND", false],
    7: ["AUTH", false],
    8: ["RATE_LIMITED", true],
    9: ["INVALID_REQUEST", false],
    12: ["UNSUPPORTED", false],
    13: ["PROVIDER_UNAVAILABLE", true],
    14: ["PROVIDER_UNAVAILABLE", true],
    15: ["PROVIDER_UNAVAILABLE", false],
    16: ["AUTH", false],
  };
  for (const [code, [want, retryable]] of Object.entries(expected)) {
    const error = clientError(Number(code));
    const mapped = mapModalError(error, { operation: "launch", sandboxId: "sb-1" });
    assert.equal(mapped.code, want, `status ${code}`);
    assert.equal(mapped.retryable, retryable, `status ${code} retryable`);
    assert.equal(mapped.cause, error);
    assert.equal(mapped.details.sandboxId, "sb-1");
  }
});

test("the SDK's error classes", () => {
  for (const [name, want] of [
    ["NotFoundError", "NOT_FOUND"],
    ["ConflictError", "NOT_FOUND"],
    ["SandboxFilesystemNotFoundError", "NOT_FOUND"],
    ["SandboxFilesystemFileTooLargeError", "OUTPUT_LIMIT"],
    ["SandboxFilesystemIsADirectoryError", "INVALID_REQUEST"],
    ["SandboxFilesystemPermissionError", "INVALID_REQUEST"],
    ["InvalidError", "INVALID_REQUEST"],
    ["TimeoutError", "DEADLINE_EXCEEDED"],
    ["ResourceExhaustedError", "PROVIDER_UNAVAILABLE"],
    ["InternalFailure", "PROVIDER_UNAVAILABLE"],
  ] as const) {
    assert.equal(mapModalError(named(name), { operation: "x" }).code, want, name);
  }
});

test("the SDK's plain deadline errors, and anything else", () => {
  const deadline = new Error("Deadline exceeded while waiting for exec 1234");
  assert.equal(mapModalError(deadline, { operation: "exec" }).code, "DEADLINE_EXCEEDED");
  assert.equal(mapModalError(new Error("something odd"), { operation: "exec" }).code, "UNEXPECTED");
  assert.equal(mapModalError("a string", { operation: "exec" }).code, "UNEXPECTED");
});

test("what a failed create's gRPC status says: was it sent, may it have created anyway", () => {
  // Cut by its deadline (4) or our abort (1), failed inside the server (2, 10, 13, 15), or lost with the
  // connection (14): the sandbox may exist. Refused by the server: it does not.
  for (const code of [1, 2, 4, 10, 13, 14, 15]) {
    assert.equal(mapModalError.outcomeUnknown(clientError(code)), true, `status ${code}`);
  }
  for (const code of [3, 5, 6, 7, 8, 9, 11, 12, 16]) {
    assert.equal(mapModalError.outcomeUnknown(clientError(code)), false, `status ${code}`);
  }
  const refused = mapModalError(clientError(3), { operation: "launch" });
  assert.deepEqual([refused.code, refused.details.sent], ["INVALID_REQUEST", true], "a refused request was sent");
  assert.equal(mapModalError(clientError(4), { operation: "launch" }).details.sent, undefined);
  const neverConnected = Object.assign(
    new Error(
      "/modal.client.ModalClient/SandboxCreateV2 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 127.0.0.1:9",
    ),
    { name: "ClientError", code: 14 },
  );
  const unreachable = mapModalError(neverConnected, { operation: "launch" });
  assert.deepEqual([unreachable.code, unreachable.details.sent], ["PROVIDER_UNAVAILABLE", false]);
  assert.match(unreachable.message, /unreachable/);
  assert.equal(mapModalError.outcomeUnknown(neverConnected), false, "nothing was sent");
});

test("a filesystem call the command router refused (the SDK drops its status) is RATE_LIMITED, not UNEXPECTED", () => {
  // The SDK turns a command-router ClientError it does not call "unavailable" (RESOURCE_EXHAUSTED,
  // and INTERNAL or ABORTED once its own retries are spent) into this, without the status or a cause.
  for (const message of [
    "An unexpected error occurred, please contact support@modal.com",
    "An unexpected error occurred, please contact support@modal.com (Error code: AB12CD34)",
  ]) {
    const error = Object.assign(new Error(message), { name: "SandboxFilesystemError" });
    const mapped = mapModalError(error, { operation: "writeFiles", sandboxId: "sb-1" });
    assert.deepEqual([mapped.code, mapped.retryable], ["RATE_LIMITED", true], message);
    assert.equal(mapped.cause, error);
  }
  // The same class for a failed file operation itself stays as it was.
  const failed = Object.assign(new Error("Operation on '/w/a' failed with exit code 3"), {
    name: "SandboxFilesystemError",
  });
  assert.equal(mapModalError(failed, { operation: "writeFiles" }).code, "UNEXPECTED");
});
