import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { splitStartCommandRequest } from "./commands.js";
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
    assert.deepEqual(request.cwd, { kind: "workspace", path: "app/src" });
  });
  test("an absolute cwd outside the workspace is kept, absolute; none is the workspace root", () => {
    assert.deepEqual(validateExecRequest({ shell: "pwd", cwd: "/tmp/" }).cwd, { kind: "sandbox", path: "/tmp" });
    assert.deepEqual(validateExecRequest({ shell: "pwd", cwd: "/" }).cwd, { kind: "sandbox", path: "/" });
    assert.deepEqual(validateExecRequest({ shell: "pwd" }).cwd, { kind: "workspace", path: "" });
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
      { argv: ["a"], cwd: "/tmp/../etc" },
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

describe("unknown keys, numbers given as strings, set-id modes", () => {
  const refusal = (check: () => unknown, pattern: RegExp) =>
    assert.throws(
      check,
      (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST") && pattern.test(error.message),
      String(pattern),
    );
  test("every request shape refuses a key it does not have, naming it and the nearest known key", () => {
    refusal(
      () => validateExecRequest({ argv: ["true"], tiemoutMs: 5 }),
      /unknown key "tiemoutMs" \(did you mean timeoutMs\?\)/,
    );
    refusal(() => validateExecRequest({ shell: "true", cwdir: "a" }), /unknown key "cwdir"/);
    refusal(
      () => validateFiles([{ path: "a", content: "", mdoe: 0o644 }]),
      /files\[0\]: unknown key "mdoe" \(did you mean mode\?\)/,
    );
    refusal(
      () => validateLaunchSpec({ lables: { a: "b" } }),
      /launch spec: unknown key "lables" \(did you mean labels\?\)/,
    );
    refusal(() => validateLaunchSpec({ resources: { cpu: 1 } }), /unknown key "cpu" \(did you mean cpus\?\)/);
    refusal(() => validateOpOptions({ timeoutMS: 5 }), /unknown key "timeoutMS" \(did you mean timeoutMs\?\)/);
  });
  test("a startCommand request splits into its session id and exec request; a misspelt sessionId is named", () => {
    assert.deepEqual(splitStartCommandRequest({ sessionId: "job-1", shell: "true" }), {
      sessionId: "job-1",
      execRequest: { shell: "true" },
    });
    refusal(
      () => splitStartCommandRequest({ sesionId: "job-1", shell: "true" }),
      /startCommand request: unknown key "sesionId" \(did you mean sessionId\?\)/,
    );
    refusal(() => splitStartCommandRequest(null), /startCommand request must be an object/);
    refusal(() => splitStartCommandRequest({ sessionId: "..", shell: "true" }), /sessionId must be/);
  });
  test("keys inside the caller's maps (env, labels) are never taken for typos", () => {
    assert.deepEqual(validateExecRequest({ argv: ["a"], env: { tiemoutMs: "1" } }).env, { tiemoutMs: "1" });
    assert.deepEqual(validateLaunchSpec({ labels: { lables: "x" } }), { labels: { lables: "x" } });
  });
  test("a number given as a string says it got a string", () => {
    refusal(
      () => validateExecRequest({ argv: ["a"], timeoutMs: "1000" }),
      /^timeoutMs must be a number, got string "1000"$/,
    );
    refusal(
      () => validateExecRequest({ argv: ["a"], maxOutputBytes: "10" }),
      /maxOutputBytes must be a number, got string "10"/,
    );
    refusal(() => validateOpOptions({ timeoutMs: "5" }), /timeoutMs must be a number, got string "5"/);
    refusal(() => validateLaunchSpec({ lifetimeMs: "60000" }), /lifetimeMs must be a number, got string "60000"/);
    refusal(
      () => validateLaunchSpec({ resources: { maxProcesses: "8" } }),
      /maxProcesses must be a number, got string "8"/,
    );
    refusal(() => validateFiles([{ path: "a", content: "", mode: "755" }]), /mode must be a number, got string "755"/);
  });
  test("a file mode with setuid, setgid or sticky bits is refused; 0 to 0o777 is kept", () => {
    for (const mode of [0o4755, 0o2755, 0o1777, 0o7777]) {
      refusal(() => validateFiles([{ path: "a", content: "", mode }]), /mode must be an integer from 0 to 0o777/);
    }
    assert.deepEqual(
      validateFiles([
        { path: "a", content: "", mode: 0o777 },
        { path: "b", content: "", mode: 0 },
      ]).map((file) => file.mode),
      [0o777, 0],
    );
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
