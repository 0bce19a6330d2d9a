// Compile-time check (run by `tsc --noEmit`): the oldest (0.180, installed as
// daytona-sdk-legacy) and newest (0.218) @daytonaio/sdk and the renamed
// @daytona/sdk must satisfy the structural slice in sdk-types.ts. If a new SDK
// version changes any member used, this file stops compiling. The low-level
// API lives in a field the SDK's types call private, so a runtime test checks it.
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as Renamed from "@daytona/sdk";
import type * as Newest from "@daytonaio/sdk";
import type * as Oldest from "daytona-sdk-legacy";
import { lowLevelApi } from "./low-level-api.js";
import type { DaytonaClientConfig, DaytonaSdkModule } from "./sdk-types.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type NewestSatisfiesSlice = Satisfies<typeof Newest, DaytonaSdkModule>;
export type OldestSatisfiesSlice = Satisfies<typeof Oldest, DaytonaSdkModule>;
export type RenamedSatisfiesSlice = Satisfies<typeof Renamed, DaytonaSdkModule>;

const config: DaytonaClientConfig = {
  apiKey: "k",
  apiUrl: "http://127.0.0.1:9/api",
  target: "us",
  useDeprecatedPolling: true,
  otelEnabled: false,
  requestTimeoutMs: 1_000,
};

test("every supported SDK's client has the low-level sandbox API the adapter reads", async () => {
  for (const name of ["@daytonaio/sdk", "daytona-sdk-legacy", "@daytona/sdk"]) {
    const sdk = (await import(name)) as DaytonaSdkModule;
    const api = lowLevelApi(new sdk.Daytona(config));
    assert.equal(typeof api.getSandbox, "function", name);
    assert.equal(typeof api.createSandbox, "function", name);
    assert.equal(typeof api.deleteSandbox, "function", name);
    assert.equal(typeof api.listSandboxes, "function", name);
  }
  assert.throws(() => lowLevelApi({} as never), /low-level sandbox API/);
});
