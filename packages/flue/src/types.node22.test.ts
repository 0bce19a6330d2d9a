// Compile-time check (run by `tsc --noEmit`): the driver and the factory are
// what the installed @flue/runtime expects (SandboxDriver, SandboxFactory, the
// factory `useSandbox` takes). The runtime test checks Flue accepts them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type SandboxDriver, type SandboxFactory, sandboxFromDriver, type useSandbox } from "@flue/runtime";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { SandportFlueDriver, type sandportSandbox } from "./index.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type DriverIsASandboxDriver = Satisfies<SandportFlueDriver, SandboxDriver>;
export type FactoryIsASandboxFactory = Satisfies<ReturnType<typeof sandportSandbox>, SandboxFactory>;
export type FactoryFitsUseSandbox = Satisfies<ReturnType<typeof sandportSandbox>, Parameters<typeof useSandbox>[0]>;

test("Flue wraps the driver into its sandbox", async () => {
  const runtime = new RecordingRuntime();
  const sandbox = sandboxFromDriver(new SandportFlueDriver(runtime, await runtime.launch({})), "/workspace");
  await sandbox.writeFile("a.txt", "a");
  assert.equal(await sandbox.readFile("a.txt"), "a");
});
