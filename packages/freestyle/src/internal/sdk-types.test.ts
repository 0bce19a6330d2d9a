// Compile-time check (run by `tsc --noEmit`): the real freestyle SDK must
// satisfy the structural slice in sdk-types.ts. If a new SDK version changes
// any member we use, this file stops compiling. The runtime test below only keeps node:test happy.
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as RealSdk from "freestyle";
import type { FreestyleSdkModule } from "./sdk-types.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type RealSdkSatisfiesSlice = Satisfies<typeof RealSdk, FreestyleSdkModule>;

test("the real freestyle SDK satisfies the structural slice (checked by tsc)", async () => {
  const sdk: FreestyleSdkModule = await import("freestyle");
  const client = new sdk.Freestyle({ apiKey: "k", baseUrl: "http://127.0.0.1:1", fetch: globalThis.fetch });
  assert.equal(typeof client.vms.create, "function");
  assert.equal(typeof client.vms.ref("vm").fs.readFile, "function");
});
