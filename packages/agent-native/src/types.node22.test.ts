// Compile-time check (run by `tsc --noEmit`): the bridge's structural types
// and the installed agent-native seam are the same, in both directions, and
// the adapter is a SandboxAdapter. A release that changes the seam stops
// this compiling. The seam's module is not exported, so it is imported by file.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import type {
  SandboxAdapter,
  SandboxRunRequest,
  SandboxRunResult,
} from "../node_modules/@agent-native/core/dist/coding-tools/sandbox/adapter.js";
import {
  getSandboxAdapter,
  registerSandboxAdapter,
} from "../node_modules/@agent-native/core/dist/coding-tools/sandbox/index.js";
import {
  type AgentNativeRunRequest,
  type AgentNativeRunResult,
  type AgentNativeSandboxAdapter,
  SandportSandboxAdapter,
} from "./index.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type RequestMatches = [
  Satisfies<SandboxRunRequest, AgentNativeRunRequest>,
  Satisfies<AgentNativeRunRequest, SandboxRunRequest>,
];
export type ResultMatches = [
  Satisfies<SandboxRunResult, AgentNativeRunResult>,
  Satisfies<AgentNativeRunResult, SandboxRunResult>,
];
export type AdapterMatches = [
  Satisfies<SandboxAdapter, AgentNativeSandboxAdapter>,
  Satisfies<AgentNativeSandboxAdapter, SandboxAdapter>,
];
export type BridgeIsAnAdapter = Satisfies<SandportSandboxAdapter, SandboxAdapter>;

test("agent-native takes the adapter as its run-code backend", () => {
  const adapter = new SandportSandboxAdapter({ runtime: new RecordingRuntime() });
  registerSandboxAdapter(adapter);
  try {
    assert.equal(getSandboxAdapter(), adapter);
    assert.equal(adapter.id, "sandport:recording");
  } finally {
    registerSandboxAdapter(null);
  }
});
