// The emulators' optional peer dependencies: what each loader says it supports
// is what package.json declares, and each is pinned for the tests.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { SMITHY_CORE_RANGE } from "./agentcore/event-stream.js";
import { CBOR_X_RANGE } from "./microsandbox/libraries.js";
import { GRPC_JS_RANGE } from "./modal/grpc-loader.js";
import { MODAL_RANGE } from "./modal/wire-definitions.js";

const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
};

test("every emulator peer is optional, pinned in devDependencies, and declared with its loader's range", () => {
  const loaders = {
    "@smithy/core": SMITHY_CORE_RANGE,
    "cbor-x": CBOR_X_RANGE,
    "@grpc/grpc-js": GRPC_JS_RANGE,
    modal: MODAL_RANGE,
  };
  assert.deepEqual(manifest.peerDependencies, loaders);
  for (const name of Object.keys(loaders)) {
    assert.equal(manifest.peerDependenciesMeta?.[name]?.optional, true, `${name} is an optional peer`);
    assert.match(manifest.devDependencies?.[name] ?? "", /^\d+\.\d+\.\d+$/, `${name} is pinned in devDependencies`);
  }
});
