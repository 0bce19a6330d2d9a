import assert from "node:assert/strict";
import {
  type ExecRequest,
  MAX_OUTPUT_BYTES,
  MAX_TIMEOUT_MS,
  type OpOptions,
  type SandboxHandle,
  type SandportErrorCode,
} from "@sandport/core";
import { assertSucceeded, expectCode, fileExists, readText } from "./assertions.js";
import type { CheckGroup } from "./suite.js";

/** One malformed call: what is wrong, the request, per-call options, and the code it must fail with. */
export interface InvalidExecCase {
  readonly what: string;
  readonly request: ExecRequest;
  readonly op?: OpOptions;
  readonly code: SandportErrorCode;
}

/**
 * Malformed exec requests. Each would append a line to `probeFile` if it ran,
 * so a refusal that still ran the command leaves a trace.
 */
export function invalidExecCases(probeFile: string): readonly InvalidExecCase[] {
  const shell = `echo ran >> ${probeFile}`;
  const argv = ["sh", "-c", shell];
  const bad = (what: string, request: object, code: SandportErrorCode = "INVALID_REQUEST"): InvalidExecCase => ({
    what,
    request: request as ExecRequest,
    code,
  });
  return [
    bad("timeoutMs -1", { shell, timeoutMs: -1 }),
    bad("timeoutMs 0", { shell, timeoutMs: 0 }),
    bad("timeoutMs NaN", { shell, timeoutMs: Number.NaN }),
    bad("timeoutMs Infinity", { shell, timeoutMs: Number.POSITIVE_INFINITY }),
    bad("timeoutMs 1.5", { shell, timeoutMs: 1.5 }),
    bad("timeoutMs above the ceiling", { shell, timeoutMs: MAX_TIMEOUT_MS + 1 }),
    bad("env name with '-'", { shell, env: { "BAD-NAME": "x" } }),
    bad("env name starting with a digit", { shell, env: { "1ABC": "x" } }),
    bad("empty env name", { shell, env: { "": "x" } }),
    bad("env name with '='", { shell, env: { "A=B": "x" } }),
    bad("env value with NUL", { shell, env: { GOOD: "a\u0000b" } }),
    bad("env value that is not a string", { shell, env: { GOOD: 1 } }),
    bad("empty argv", { argv: [] }),
    bad("empty argv[0]", { argv: ["", ...argv] }),
    bad("argv with a NUL byte", { argv: [...argv, "a\u0000b"] }),
    bad("argv with a non-string", { argv: [...argv, 7] }),
    bad("empty shell", { shell: "" }),
    bad("whitespace-only shell", { shell: "  \n " }),
    bad("both argv and shell", { argv, shell }),
    bad("neither argv nor shell", { cwd: "." }),
    bad("cwd ..", { shell, cwd: ".." }),
    bad("cwd absolute with '..'", { shell, cwd: "/tmp/../etc" }),
    bad("cwd %2e%2e", { shell, cwd: "%2e%2e" }),
    bad("maxOutputBytes 0", { shell, maxOutputBytes: 0 }),
    bad("maxOutputBytes -1", { shell, maxOutputBytes: -1 }),
    bad("maxOutputBytes NaN", { shell, maxOutputBytes: Number.NaN }),
    bad("maxOutputBytes above the ceiling", { shell, maxOutputBytes: MAX_OUTPUT_BYTES + 1 }),
    bad("stdin that is a number", { shell, stdin: 5 }),
    bad("an unknown key (tiemoutMs)", { shell, tiemoutMs: 5 }),
    bad("timeoutMs given as a string", { shell, timeoutMs: "1000" }),
    { what: "op.timeoutMs -1", request: { shell }, op: { timeoutMs: -1 }, code: "INVALID_REQUEST" },
    { what: "op.timeoutMs NaN", request: { shell }, op: { timeoutMs: Number.NaN }, code: "INVALID_REQUEST" },
    { what: "op with an unknown key", request: { shell }, op: { timeoutMS: 5 } as OpOptions, code: "INVALID_REQUEST" },
  ];
}

/** Registers `exec.invalid-requests`: every malformed request is refused and runs nothing. */
export function declareValidationChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime } = group;

  group.check("exec.invalid-requests", async () => {
    const handle = group.sandbox();
    const probe = "invalid-exec-ran.txt";
    for (const { what, request, op, code } of invalidExecCases(probe)) {
      await expectCode(() => runtime.exec(handle, request, op), code, `exec with ${what}`);
    }
    assert.equal(await fileExists(runtime, handle, probe), false, "a refused request ran its command");
    // A typo is refused by name, with the key it was meant to be, and a string for a number says so.
    const typo = await expectCode(
      () => runtime.exec(handle, { shell: `echo ran >> ${probe}`, tiemoutMs: 5 } as ExecRequest),
      "INVALID_REQUEST",
      "exec with tiemoutMs",
    );
    assert.match(typo.message, /tiemoutMs.*timeoutMs/, `the refusal names the typo and the known key: ${typo.message}`);
    const text = await expectCode(
      () => runtime.exec(handle, { shell: `echo ran >> ${probe}`, timeoutMs: "1000" as unknown as number }),
      "INVALID_REQUEST",
      "exec with timeoutMs as a string",
    );
    assert.match(text.message, /got string "1000"/, `the refusal says it got a string: ${text.message}`);
    // The control: the same probe, well-formed, does leave its trace.
    assertSucceeded(await runtime.exec(handle, { shell: `echo ran >> ${probe}` }), "the well-formed probe");
    assert.equal(await readText(runtime, handle, probe), "ran\n", "only the well-formed probe ran");
  });
}
