// Compile-time check (run by `tsc --noEmit`): what the bridge returns is a
// deepagents BaseSandbox and a sandbox backend `createDeepAgent` accepts, by
// the installed package's types. The runtime test checks the framework agrees.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { BaseSandbox, type CreateDeepAgentParams, isSandboxBackend, type SandboxBackendProtocolV2 } from "deepagents";
import {
  createDeepAgentsSandbox,
  type SandportDeepAgentsSandbox,
  type SandportDeepAgentsSandboxClass,
} from "./index.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type IsABaseSandbox = Satisfies<SandportDeepAgentsSandbox, BaseSandbox>;
export type IsASandboxBackend = Satisfies<SandportDeepAgentsSandbox, SandboxBackendProtocolV2>;
export type IsADeepAgentBackend = Satisfies<SandportDeepAgentsSandbox, NonNullable<CreateDeepAgentParams["backend"]>>;

/**
 * The lifecycle members deepagents' first-party sandboxes (Daytona, Modal,
 * Deno) share and its sandbox standard tests call, with their signatures.
 */
interface FrameworkSandboxLifecycle {
  readonly id: string;
  readonly isRunning: boolean;
  initialize(): Promise<void>;
  close(): Promise<void>;
}
export type HasTheFrameworksLifecycle = Satisfies<SandportDeepAgentsSandbox, FrameworkSandboxLifecycle>;
/** Their statics: `create(options)`, `fromId(id, options)`, Daytona's `deleteAll(labels, options)`. */
interface FrameworkSandboxStatics<Options> {
  create(options: Options): Promise<FrameworkSandboxLifecycle>;
  fromId(id: string, options: Options): Promise<FrameworkSandboxLifecycle>;
  deleteAll(labels: Record<string, string>, options: Options): Promise<number>;
}
export type HasTheFrameworksStatics = Satisfies<
  SandportDeepAgentsSandboxClass,
  FrameworkSandboxStatics<{ runtime: RecordingRuntime }>
>;

test("deepagents recognises the bridge as a sandbox backend", async () => {
  const runtime = new RecordingRuntime();
  const sandbox = await createDeepAgentsSandbox({ runtime, handle: await runtime.launch({}) });
  assert.ok(sandbox instanceof BaseSandbox);
  assert.ok(isSandboxBackend(sandbox));
  assert.equal(sandbox.id, "recording:rec-1");
});
