import assert from "node:assert/strict";
import { test } from "node:test";
import { unsupported } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import { bridgeBaseDirectory, checkBridgeOptions } from "./bridge-options.js";
import { exitStatus, KILLED_EXIT_STATUS, TIMED_OUT_EXIT_STATUS } from "./exit-status.js";
import { isNetworkRefusal } from "./network-refusal.js";
import { whenFound } from "./when-found.js";

test("exitStatus keeps a real exit code, even when the command also timed out", () => {
  assert.equal(exitStatus({ exitCode: 0, timedOut: false }), 0);
  assert.equal(exitStatus({ exitCode: 3, timedOut: true }), 3);
});

test("exitStatus maps a killed command to 124 when it timed out, else 137", () => {
  assert.equal(exitStatus({ exitCode: null, timedOut: true }), TIMED_OUT_EXIT_STATUS);
  assert.equal(exitStatus({ exitCode: null, timedOut: false }), KILLED_EXIT_STATUS);
  assert.deepEqual([TIMED_OUT_EXIT_STATUS, KILLED_EXIT_STATUS], [124, 137]);
});

test("bridgeBaseDirectory: the workspace root by default, else the directory resolved against it", () => {
  const runtime = { workspaceRoot: "/workspace" } as Parameters<typeof bridgeBaseDirectory>[0]["runtime"];
  assert.equal(bridgeBaseDirectory({ runtime }), "/workspace");
  assert.equal(bridgeBaseDirectory({ runtime, workingDirectory: "app/src" }), "/workspace/app/src");
  assert.equal(bridgeBaseDirectory({ runtime, workingDirectory: "/workspace/x" }), "/workspace/x");
});

test("whenFound passes values through and turns NOT_FOUND, and only NOT_FOUND, into undefined", async () => {
  assert.equal(await whenFound(Promise.resolve(3)), 3);
  const missing = new SandportError({ code: "NOT_FOUND", message: "gone" });
  assert.equal(await whenFound(Promise.reject(missing)), undefined);
  const denied = new SandportError({ code: "INVALID_REQUEST", message: "no" });
  await assert.rejects(whenFound(Promise.reject(denied)), (error) => error === denied);
});

test("checkBridgeOptions refuses an unknown key naming the nearest, and a timeout given as a string", () => {
  const runtime = { workspaceRoot: "/workspace" };
  const known = ["runtime", "workingDirectory", "commandTimeoutMs", "handle"];
  const refused = (options: unknown, pattern: RegExp) =>
    assert.throws(
      () => checkBridgeOptions(options, known, "demo options"),
      (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST") && pattern.test(error.message),
      String(pattern),
    );
  refused(
    { runtime, workingDirectroy: "app" },
    /demo options: unknown key "workingDirectroy" \(did you mean workingDirectory\?\)/,
  );
  refused({ runtime, commandTimeoutMs: "1000" }, /commandTimeoutMs must be a number, got string "1000"/);
  refused({ runtime, workingDirectory: 5 }, /workingDirectory must be a string/);
  refused({}, /runtime must be a Sandport runtime/);
  refused(null, /demo options must be an object/);
  checkBridgeOptions({ runtime, workingDirectory: "app", commandTimeoutMs: 5, handle: { id: "x" } }, known, "demo");
});

test("isNetworkRefusal: a runtime's UNSUPPORTED about a network feature, nothing else", () => {
  assert.equal(isNetworkRefusal(unsupported("local", "network allow lists", "it enforces none")), true);
  assert.equal(isNetworkRefusal(unsupported("local", 'network: "none"', "no namespaces")), true);
  assert.equal(isNetworkRefusal(unsupported("local", "ports", "none declared")), false);
  assert.equal(
    isNetworkRefusal(new SandportError({ code: "INVALID_REQUEST", message: "network", details: {} })),
    false,
  );
  assert.equal(isNetworkRefusal(new Error("network allow lists")), false);
});
