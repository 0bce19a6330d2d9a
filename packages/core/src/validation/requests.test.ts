import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { refuseReservedEnv, validateEnv } from "./env.js";
import { validateLabels } from "./labels.js";
import { MAX_OUTPUT_BYTES, validateTimeoutMs } from "./numbers.js";
import { validateExecRequest, validateFiles, validateLaunchSpec, validateOpOptions } from "./requests.js";

const isCode = (code: string) => (error: unknown) => SandportError.hasCode(error, code as never);

describe("validateEnv", () => {
  test("accepts valid names and copies", () => {
    const env = { A: "1", _x9: "", PATH_LIKE: "a:b" };
    const copy = validateEnv(env);
    assert.deepEqual(copy, env);
    assert.notEqual(copy, env);
    assert.ok(Object.isFrozen(copy));
  });
  test("refuses invalid names and values", () => {
    for (const env of [
      { "1A": "x" },
      { "A-B": "x" },
      { "": "x" },
      { "A B": "x" },
      { "A=B": "x" },
      { A: 1 },
      { A: "x\u0000" },
    ]) {
      assert.throws(() => validateEnv(env), isCode("INVALID_REQUEST"), JSON.stringify(env));
    }
    assert.throws(() => validateEnv(["A"]), isCode("INVALID_REQUEST"));
  });
});

describe("refuseReservedEnv", () => {
  test("refuses a reserved name and passes anything else", () => {
    assert.throws(
      () => refuseReservedEnv({ A: "1", MARKER: "x" }, ["MARKER"], "env", "local"),
      (error: unknown) =>
        SandportError.hasCode(error, "INVALID_REQUEST") && /env\.MARKER is reserved/.test(error.message),
    );
    assert.doesNotThrow(() => refuseReservedEnv({ A: "1" }, ["MARKER"]));
    assert.doesNotThrow(() => refuseReservedEnv(undefined, ["MARKER"]));
  });
});

describe("validateTimeoutMs", () => {
  test("refuses zero, negative, fractional, NaN, infinite and huge values", () => {
    for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, "10"]) {
      assert.throws(() => validateTimeoutMs(value, "timeoutMs"), isCode("INVALID_REQUEST"), String(value));
    }
    assert.equal(validateTimeoutMs(undefined, "t"), undefined);
    assert.equal(validateTimeoutMs(1, "t"), 1);
  });
});

describe("validateExecRequest", () => {
  test("normalises cwd and keeps argv intact", () => {
    const request = validateExecRequest({ argv: ["echo", "a b", "$(x)"], cwd: "/workspace/app/./src" });
    assert.deepEqual(request.argv, ["echo", "a b", "$(x)"]);
    assert.equal(request.cwd, "app/src");
  });
  test("refuses malformed requests", () => {
    const bad: unknown[] = [
      {},
      { argv: [] },
      { argv: [""] },
      { argv: ["a", 1] },
      { argv: ["a\u0000"] },
      { shell: "" },
      { shell: "   " },
      { argv: ["a"], shell: "b" },
      { argv: ["a"], cwd: "../up" },
      { argv: ["a"], env: { "BAD-NAME": "x" } },
      { argv: ["a"], timeoutMs: -5 },
      { argv: ["a"], maxOutputBytes: 0 },
      { argv: ["a"], stdin: 42 },
      null,
    ];
    for (const request of bad) {
      assert.throws(() => validateExecRequest(request), isCode("INVALID_REQUEST"), JSON.stringify(request));
    }
  });
  test("refuses an output cap above the ceiling with INVALID_REQUEST, like any malformed parameter", () => {
    assert.throws(
      () => validateExecRequest({ argv: ["a"], maxOutputBytes: MAX_OUTPUT_BYTES + 1 }),
      isCode("INVALID_REQUEST"),
    );
  });
});

describe("validateFiles", () => {
  test("encodes strings, keeps bytes, defaults the mode", () => {
    const [text, bytes] = validateFiles([
      { path: "a.txt", content: "é" },
      { path: "/workspace/b.bin", content: new Uint8Array([0, 255]), mode: 0o755 },
    ]);
    assert.deepEqual([...(text?.content ?? [])], [0xc3, 0xa9]);
    assert.equal(text?.mode, 0o644);
    assert.equal(bytes?.path, "b.bin");
    assert.equal(bytes?.mode, 0o755);
  });
  test("refuses the whole batch if any entry is bad", () => {
    assert.throws(
      () =>
        validateFiles([
          { path: "ok", content: "" },
          { path: "../x", content: "" },
        ]),
      isCode("INVALID_REQUEST"),
    );
    assert.throws(
      () =>
        validateFiles([
          { path: "a", content: "" },
          { path: "./a", content: "" },
        ]),
      isCode("INVALID_REQUEST"),
    );
    assert.throws(() => validateFiles([{ path: "a", content: 5 }]), isCode("INVALID_REQUEST"));
    assert.throws(() => validateFiles([{ path: "a", content: "", mode: 0o10000 }]), isCode("INVALID_REQUEST"));
  });
});

describe("validateLaunchSpec and labels", () => {
  test("refuses reserved label keys at launch but not in lookups", () => {
    assert.throws(() => validateLaunchSpec({ labels: { "sandport.owner": "x" } }), isCode("INVALID_REQUEST"));
    assert.deepEqual(validateLabels({ "sandport.launch-key": "k" }, { allowReserved: true }), {
      "sandport.launch-key": "k",
    });
  });
  test("refuses bad labels, lifetimes, resources and launch keys", () => {
    for (const spec of [
      { labels: { "": "x" } },
      { labels: { a: "x".repeat(300) } },
      { labels: { a: "line\nbreak" } },
      { lifetimeMs: 0 },
      { resources: { memoryMiB: -1 } },
      { resources: { maxProcesses: 1.5 } },
      { launchKey: "has space" },
      { network: "yes" },
      { template: "" },
    ]) {
      assert.throws(() => validateLaunchSpec(spec), isCode("INVALID_REQUEST"), JSON.stringify(spec));
    }
    assert.deepEqual(validateLaunchSpec({ labels: { job: "a" }, lifetimeMs: 1000 }), {
      labels: { job: "a" },
      lifetimeMs: 1000,
    });
  });
  test("validateOpOptions checks signal and timeout", () => {
    assert.throws(() => validateOpOptions({ timeoutMs: -1 }), isCode("INVALID_REQUEST"));
    assert.throws(() => validateOpOptions({ signal: {} }), isCode("INVALID_REQUEST"));
    assert.deepEqual(validateOpOptions(undefined), {});
  });
});
