import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { EXEC_MARKER_ENV } from "../port/exec-markers.js";
import { validCommand } from "./valid-command.js";

const options = { workspaceRoot: "/work", runBudgetMs: 60_000, maxOutputBytes: 1_000 };

describe("validCommand", () => {
  test("the cwd made absolute, the marker in the env, the runtime's defaults where the request has none", () => {
    const planned = validCommand(options, { argv: ["ls"], cwd: "src", env: { A: "1" } }, "fake");
    assert.equal(planned.cwd, "/work/src");
    assert.match(planned.marker, /^[0-9a-f-]{36}$/);
    assert.deepEqual(planned.env, { A: "1", [EXEC_MARKER_ENV]: planned.marker });
    assert.equal(planned.timeoutMs, 60_000);
    assert.equal(planned.maxOutputBytes, 1_000);
    assert.deepEqual(planned.valid.argv, ["ls"]);
    const own = validCommand(options, { shell: "true", timeoutMs: 5, maxOutputBytes: 7 }, "fake");
    assert.deepEqual([own.timeoutMs, own.maxOutputBytes, own.cwd], [5, 7, "/work"]);
    assert.notEqual(own.marker, planned.marker, "a fresh marker per command");
    assert.equal(validCommand(options, { shell: "pwd", cwd: "/tmp" }, "fake").cwd, "/tmp", "any sandbox directory");
  });

  test("a reserved env name, a cwd with a '..' segment or a malformed request is INVALID_REQUEST", () => {
    for (const request of [
      { argv: ["ls"], env: { [EXEC_MARKER_ENV]: "x" } },
      { argv: ["ls"], cwd: "../up" },
      { argv: ["ls"], cwd: "/tmp/../etc" },
      { argv: [] },
    ]) {
      assert.throws(
        () => validCommand(options, request as never, "fake"),
        (error) => SandportError.hasCode(error, "INVALID_REQUEST"),
        JSON.stringify(request),
      );
    }
  });
});
