// Compile-time check (run by `tsc --noEmit`): the provider and its handle are what the installed
// @tanstack/ai-sandbox expects (SandboxProvider, SandboxHandle, the provider `defineSandbox` takes).
// The other tests check TanStack AI's own code runs on them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import type { defineSandbox, SandboxHandle, SandboxProvider } from "@tanstack/ai-sandbox";
import { type SandportSandboxHandle, sandportSandboxProvider } from "./index.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type HandleIsASandboxHandle = Satisfies<SandportSandboxHandle, SandboxHandle>;
export type ProviderIsASandboxProvider = Satisfies<ReturnType<typeof sandportSandboxProvider>, SandboxProvider>;
export type ProviderFitsDefineSandbox = Satisfies<
  ReturnType<typeof sandportSandboxProvider>,
  Parameters<typeof defineSandbox>[0]["provider"]
>;

test("the provider is named after the runtime and reports what the runtime can do", () => {
  const provider = sandportSandboxProvider({ runtime: new RecordingRuntime() });
  assert.equal(provider.name, "sandport-recording");
  assert.equal(provider.capabilities().exec, true);
});
