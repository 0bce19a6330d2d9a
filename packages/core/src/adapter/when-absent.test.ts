import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { whenAbsent } from "./when-absent.js";

const notFound = new SandportError({ code: "NOT_FOUND", message: "no such file" });
const unavailable = new SandportError({ code: "PROVIDER_UNAVAILABLE", message: "502" });
const isNotFound = (error: unknown) => SandportError.isInstance(error) && error.code === "NOT_FOUND";

test("whenAbsent: the absent error becomes the value; every other error is thrown on as it is", async () => {
  assert.equal(await Promise.reject(notFound).catch(whenAbsent(isNotFound, undefined)), undefined);
  assert.equal(await Promise.reject(notFound).then(() => true, whenAbsent(isNotFound, false)), false);
  assert.equal(await Promise.resolve("there").catch(whenAbsent(isNotFound, "absent")), "there");
  await assert.rejects(Promise.reject(unavailable).catch(whenAbsent(isNotFound, undefined)), (error) => {
    assert.equal(error, unavailable);
    return true;
  });
});
