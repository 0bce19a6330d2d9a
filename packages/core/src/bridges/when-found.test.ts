import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { whenFound } from "./when-found.js";

test("whenFound passes values through and turns NOT_FOUND, and only NOT_FOUND, into undefined", async () => {
  assert.equal(await whenFound(Promise.resolve(3)), 3);
  const missing = new SandportError({ code: "NOT_FOUND", message: "gone" });
  assert.equal(await whenFound(Promise.reject(missing)), undefined);
  const denied = new SandportError({ code: "INVALID_REQUEST", message: "no" });
  await assert.rejects(whenFound(Promise.reject(denied)), (error) => error === denied);
});
