// validateTerminalRequest: a terminal request is an exec request without stdin, plus a window size.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { validateExecRequest } from "./requests.js";
import { validateTerminalRequest, validateTerminalSignal, validateTerminalSize } from "./terminal-request.js";

function refused(run: () => unknown, field?: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(SandportError.isInstance(error));
    assert.equal(error.code, "INVALID_REQUEST");
    if (field !== undefined) assert.match(error.message, new RegExp(field));
    return true;
  });
}

test("a request without a size gets 80 by 24, and its command is validated as for exec", () => {
  const valid = validateTerminalRequest({ shell: "top", cwd: "/workspace/src", env: { TERM: "vt100" } });
  assert.deepEqual(valid.size, { cols: 80, rows: 24 });
  assert.deepEqual(valid.command, { shell: "top", cwd: { kind: "workspace", path: "src" }, env: { TERM: "vt100" } });
  const outside = validateTerminalRequest({ argv: ["sh"], cwd: "/tmp" });
  assert.deepEqual(outside.command.cwd, validateExecRequest({ argv: ["sh"], cwd: "/tmp" }).cwd);
  const sized = validateTerminalRequest({ argv: ["vim"], cols: 132, rows: 50, timeoutMs: 1000 });
  assert.deepEqual(sized.size, { cols: 132, rows: 50 });
  assert.equal(sized.command.timeoutMs, 1000);
});

test("bad sizes, env, keys and commands are INVALID_REQUEST", () => {
  for (const cols of [0, -1, 1.5, 65_536, Number.NaN, "80"]) {
    refused(() => validateTerminalRequest({ argv: ["sh"], cols }), "cols");
  }
  refused(() => validateTerminalRequest({ argv: ["sh"], rows: 0 }), "rows");
  refused(() => validateTerminalRequest({ argv: ["sh"], env: { "BAD-NAME": "x" } }), "env");
  refused(() => validateTerminalRequest({ argv: ["sh"], stdin: "typed" }), "stdin");
  refused(() => validateTerminalRequest({ argv: ["sh"], colums: 80 }), "colums");
  refused(() => validateTerminalRequest({ argv: [] }));
  refused(() => validateTerminalRequest({ argv: ["sh"], shell: "sh" }));
  refused(() => validateTerminalRequest(null));
});

test("resize sizes and kill signals are checked the same way", () => {
  assert.deepEqual(validateTerminalSize(1, 65_535), { cols: 1, rows: 65_535 });
  refused(() => validateTerminalSize(100, 0), "rows");
  assert.equal(validateTerminalSignal(undefined), "SIGKILL");
  assert.equal(validateTerminalSignal("SIGTERM"), "SIGTERM");
  refused(() => validateTerminalSignal("SIGSTOP"), "signal");
  refused(() => validateTerminalSignal(9), "signal");
});
