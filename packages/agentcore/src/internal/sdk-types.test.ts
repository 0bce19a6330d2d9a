// Compile-time check (run by `tsc --noEmit`): the real SDK must satisfy the
// structural slice in sdk-types.ts. If a new SDK version changes any member
// used here, this file stops compiling. The runtime test only keeps node:test happy.
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as RealSdk from "@aws-sdk/client-bedrock-agentcore";
import type { AgentCoreSdkModule } from "./sdk-types.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type RealSdkSatisfiesSlice = Satisfies<typeof RealSdk, AgentCoreSdkModule>;

test("the real SDK satisfies the structural slice (checked by tsc)", async () => {
  const sdk = (await import("@aws-sdk/client-bedrock-agentcore")) as unknown as AgentCoreSdkModule;
  assert.equal(typeof sdk.BedrockAgentCoreClient, "function");
  assert.equal(typeof sdk.InvokeCodeInterpreterCommand, "function");
});
