// ModalRuntime's options: required credentials and lifetime, Modal's units
// (whole seconds, at most 24 hours), defaults, and one refusal format; the
// constructor does no I/O and loads no SDK.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "@sandport/core";
import { ModalRuntime } from "./modal-runtime.js";
import { DEFAULT_MODAL_TIMEOUTS, type ModalRuntimeOptions, resolveOptions } from "./options.js";

const BASE: ModalRuntimeOptions = { tokenId: "ak-1", tokenSecret: "as-1", maxLifetimeMs: 3_600_000 };

/** Asserts that `options` are refused with INVALID_REQUEST naming `field`. */
function refused(options: unknown, field: string, why?: RegExp): void {
  assert.throws(
    () => resolveOptions(options as ModalRuntimeOptions),
    (error: unknown) => {
      assert.ok(SandportError.isInstance(error));
      assert.equal(error.code, "INVALID_REQUEST");
      assert.equal(error.details.field, field);
      assert.match(error.message, new RegExp(`^ModalRuntime option ${field.replace(".", "\\.")} `));
      if (why) assert.match(error.message, why);
      return true;
    },
  );
}

test("defaults: Modal's server, main, the sandport App, python:3.13-slim, /workspace, tls tunnels", () => {
  const resolved = resolveOptions(BASE);
  assert.deepEqual(
    [
      resolved.serverUrl,
      resolved.environment,
      resolved.appName,
      resolved.image,
      resolved.workspaceRoot,
      resolved.tunnels,
      resolved.network,
      resolved.owner,
      resolved.idleTimeoutMs,
      resolved.maxThrottleWaitMs,
    ],
    [
      "https://api.modal.com:443",
      "main",
      "sandport",
      "python:3.13-slim",
      "/workspace",
      "tls",
      true,
      "sandport",
      undefined,
      60_000,
    ],
  );
  assert.deepEqual(resolved.timeouts, DEFAULT_MODAL_TIMEOUTS);
});

test("the token pair and the lifetime are required; nothing falls back to MODAL_* or ~/.modal.toml", () => {
  process.env.MODAL_TOKEN_ID = "ak-ambient";
  process.env.MODAL_TOKEN_SECRET = "as-ambient";
  try {
    refused({ ...BASE, tokenId: undefined }, "tokenId", /MODAL_TOKEN_ID/);
    refused({ ...BASE, tokenSecret: "" }, "tokenSecret");
    refused({ ...BASE, maxLifetimeMs: undefined }, "maxLifetimeMs", /required/);
  } finally {
    delete process.env.MODAL_TOKEN_ID;
    delete process.env.MODAL_TOKEN_SECRET;
  }
});

test("lifetimes and idle timeouts are whole seconds from 1 s to 24 h", () => {
  refused({ ...BASE, maxLifetimeMs: 1_500 }, "maxLifetimeMs", /whole seconds/);
  refused({ ...BASE, maxLifetimeMs: 500 }, "maxLifetimeMs");
  refused({ ...BASE, maxLifetimeMs: 24 * 3_600_000 + 1_000 }, "maxLifetimeMs");
  refused({ ...BASE, idleTimeoutMs: 2_500 }, "idleTimeoutMs");
  assert.equal(resolveOptions({ ...BASE, idleTimeoutMs: 30_000 }).idleTimeoutMs, 30_000);
  assert.equal(resolveOptions({ ...BASE, maxLifetimeMs: 24 * 3_600_000 }).maxLifetimeMs, 24 * 3_600_000);
});

test("every other option is checked", () => {
  refused({ ...BASE, serverUrl: "grpc://x" }, "serverUrl");
  refused({ ...BASE, environment: "has space" }, "environment");
  refused({ ...BASE, appName: "a/b" }, "appName");
  refused({ ...BASE, image: "" }, "image");
  refused({ ...BASE, workspaceRoot: "relative" }, "workspaceRoot");
  refused({ ...BASE, tunnels: "udp" }, "tunnels");
  refused({ ...BASE, network: "yes" }, "network");
  refused({ ...BASE, maxThrottleWaitMs: -1 }, "maxThrottleWaitMs");
  refused({ ...BASE, owner: "bad owner" }, "owner");
  refused({ ...BASE, timeouts: { bogusMs: 1 } }, "timeouts.bogusMs");
  refused({ ...BASE, onBackgroundError: "log" }, "onBackgroundError");
  assert.equal(resolveOptions({ ...BASE, serverUrl: "http://127.0.0.1:8080/" }).serverUrl, "http://127.0.0.1:8080");
});

test("constructing a runtime loads nothing and sends nothing", () => {
  let loads = 0;
  const runtime = new ModalRuntime({
    ...BASE,
    sdk: async () => {
      loads++;
      throw new Error("not loaded");
    },
  });
  assert.equal(runtime.provider, "modal");
  assert.equal(runtime.workspaceRoot, "/workspace");
  assert.equal(loads, 0);
});
