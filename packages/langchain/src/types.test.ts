// Compile-time check (run by `tsc --noEmit`): what the bridge returns is a
// deepagents BaseSandbox and a sandbox backend `createDeepAgent` accepts, by
// the installed package's types. The runtime test checks the framework agrees.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { BaseSandbox, type CreateDeepAgentParams, isSandboxBackend, type SandboxBackendProtocolV2 } from "deepagents";
import { createDeepAgentsSandbox, type SandportDeepAgentsSandbox } from "./index.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type IsABaseSandbox = Satisfies<SandportDeepAgentsSandbox, BaseSandbox>;
export type IsASandboxBackend = Satisfies<SandportDeepAgentsSandbox, SandboxBackendProtocolV2>;
export type IsADeepAgentBackend = Satisfies<SandportDeepAgentsSandbox, NonNullable<CreateDeepAgentParams["backend"]>>;

test("deepagents recognises the bridge as a sandbox backend", async () => {
  const runtime = new RecordingRuntime();
  const sandbox = await createDeepAgentsSandbox({ runtime, handle: await runtime.launch({}) });
  assert.ok(sandbox instanceof BaseSandbox);
  assert.ok(isSandboxBackend(sandbox));
  assert.equal(sandbox.id, "recording:rec-1");
});
