import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { invalidRequest } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import { createErrorMapper } from "./error-mapper.js";
import { OperationRunner } from "./operation-runner.js";

const runner = new OperationRunner({
  provider: "test",
  mapError: createErrorMapper({ provider: "test" }),
  sandboxIdOf: (handle, operation) => {
    const id = (handle as { id?: unknown } | null)?.id;
    if (typeof id !== "string" || id.includes("/")) throw invalidRequest(`${operation} needs a handle`, {}, "test");
    return id;
  },
});

describe("OperationRunner", () => {
  test("run maps what the task throws at its site, with the provider and the deadline of runOperation", async () => {
    const error = await runner
      .run(undefined, { operation: "readFile", path: "/w/a" }, 1_000, async () => {
        throw Object.assign(new Error("gone"), { status: 404 });
      })
      .catch((caught: unknown) => caught);
    assert.ok(SandportError.isInstance(error));
    assert.equal(error.code, "NOT_FOUND");
    assert.equal(error.provider, "test");
    assert.deepEqual([error.details.operation, error.details.path], ["readFile", "/w/a"]);
    const late = await runner.run(undefined, { operation: "exec" }, 20, () => new Promise(() => {})).catch((e) => e);
    assert.ok(SandportError.hasCode(late, "DEADLINE_EXCEEDED"));
  });

  test("onHandle checks the handle before the task and names the sandbox in errors", async () => {
    let ran = false;
    const refused = await runner
      .onHandle({ id: "a/b" }, undefined, "destroy", 1_000, async () => {
        ran = true;
      })
      .catch((caught: unknown) => caught);
    assert.ok(SandportError.hasCode(refused, "INVALID_REQUEST"));
    assert.equal(ran, false);
    const seen = await runner.onHandle(
      { id: "sbx" },
      undefined,
      { operation: "stat", path: "/p" },
      1_000,
      async (id) => id,
    );
    assert.equal(seen, "sbx");
    const failed = await runner
      .onHandle({ id: "sbx" }, undefined, "exec", 1_000, async () => {
        throw Object.assign(new Error("busy"), { status: 503 });
      })
      .catch((caught: unknown) => caught);
    assert.ok(SandportError.hasCode(failed, "PROVIDER_UNAVAILABLE"));
    assert.equal(failed.details.sandboxId, "sbx");
  });
});
