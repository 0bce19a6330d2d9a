import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { absentAs } from "./absent-sandbox.js";

describe("absentAs", () => {
  const gone = new Error("404");
  const other = new Error("500");
  const isAbsent = (error: unknown) => error === gone;

  test("the vendor's absence is NOT_FOUND naming the sandbox, with the vendor error as cause", async () => {
    const rejected = await Promise.reject(gone)
      .catch(absentAs("fake", isAbsent, "sbx-1", "stop"))
      .catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(rejected, "NOT_FOUND"));
    assert.equal((rejected as SandportError).cause, gone);
    assert.match(String((rejected as SandportError).message), /sbx-1/);
  });

  test("any other error goes on as it is, or through mapOther", async () => {
    const asIs = await Promise.reject(other)
      .catch(absentAs("fake", isAbsent, "sbx-1", "stop"))
      .catch((error: unknown) => error);
    assert.equal(asIs, other);
    const mapped = await Promise.reject(other)
      .catch(absentAs("fake", isAbsent, "sbx-1", "stop", () => "mapped"))
      .catch((error: unknown) => error);
    assert.equal(mapped, "mapped");
  });
});
