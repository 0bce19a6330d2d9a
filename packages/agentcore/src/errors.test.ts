// The mapper over the SDK's own exception classes (constructed as the SDK
// does) and the node HTTP handler's failures: codes, retryability, and
// whether a failed call may have taken effect.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  AccessDeniedException,
  InternalServerException,
  ResourceNotFoundException,
  ServiceQuotaExceededException,
  ThrottlingException,
  ValidationException,
} from "@aws-sdk/client-bedrock-agentcore";
import { isNotFound, mapAgentCoreError } from "./errors.js";

const site = { operation: "exec", sandboxId: "s1" };
const fields = (status: number) => ({ message: "m", $metadata: { httpStatusCode: status } });

test("AgentCore's exceptions map to codes, and say whether the call may have run", () => {
  const cases = [
    [new ValidationException(fields(400) as never), "INVALID_REQUEST", false],
    [new AccessDeniedException(fields(403) as never), "AUTH", false],
    [new ResourceNotFoundException(fields(404) as never), "NOT_FOUND", false],
    [new ServiceQuotaExceededException(fields(402) as never), "RATE_LIMITED", false],
    [new ThrottlingException(fields(429) as never), "RATE_LIMITED", false],
    [new InternalServerException(fields(500) as never), "PROVIDER_UNAVAILABLE", true],
  ] as const;
  for (const [error, code, unknown] of cases) {
    const mapped = mapAgentCoreError(error, site);
    assert.equal(mapped.code, code, error.name);
    assert.equal(mapped.cause, error);
    assert.equal(mapAgentCoreError.outcomeUnknown(error), unknown, `${error.name} outcome unknown`);
  }
  assert.equal(isNotFound(new ResourceNotFoundException(fields(404) as never)), true);
  assert.equal(isNotFound(new ThrottlingException(fields(429) as never)), false);
});

test("a reset connection, which the SDK names TimeoutError, may have run; a socket timeout is a deadline", () => {
  const reset = Object.assign(new Error("socket hang up"), { name: "TimeoutError", code: "ECONNRESET" });
  const mapped = mapAgentCoreError(reset, site);
  assert.equal(mapped.code, "PROVIDER_UNAVAILABLE");
  assert.equal(mapAgentCoreError.outcomeUnknown(reset), true);
  const slow = Object.assign(new Error("timed out"), { name: "TimeoutError", code: "ETIMEDOUT" });
  assert.equal(mapAgentCoreError(slow, site).code, "DEADLINE_EXCEEDED");
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
  assert.equal(mapAgentCoreError(refused, site).code, "PROVIDER_UNAVAILABLE");
  assert.equal(mapAgentCoreError.outcomeUnknown(refused), false, "nothing was sent");
});

test("an error answer the SDK does not model goes by its HTTP status", () => {
  const unknown = Object.assign(new Error("Unknown"), { name: "UnknownError", $metadata: { httpStatusCode: 503 } });
  assert.equal(mapAgentCoreError(unknown, site).code, "PROVIDER_UNAVAILABLE");
  assert.equal(mapAgentCoreError.outcomeUnknown(unknown), false, "a 503 refused the call");
  const gone = Object.assign(new Error("gone"), { name: "SomethingNotFound", $metadata: { httpStatusCode: 404 } });
  assert.equal(mapAgentCoreError(gone, site).code, "NOT_FOUND");
});
