// Compile-time check (run by `tsc --noEmit`): the bridge's classes are what the
// installed @openai/agents-core expects of a sandbox client, session and editor.
// A release that changes a member the bridge implements stops this compiling.
// The runtime test checks the same objects are accepted by a real run config.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Editor, RunConfig } from "@openai/agents-core";
import type { SandboxClient, SandboxSession, SandboxSessionState } from "@openai/agents-core/sandbox";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { type SandportEditor, SandportSandboxClient, SandportSandboxSession } from "./index.js";

type Satisfies<Actual extends Expected, Expected> = Actual;
export type ClientIsASandboxClient = Satisfies<SandportSandboxClient, SandboxClient>;
export type SessionIsASandboxSession = Satisfies<SandportSandboxSession, SandboxSession<SandboxSessionState>>;
export type EditorIsAnEditor = Satisfies<SandportEditor<never>, Editor>;

test("the client and its sessions fit a run's sandbox config (types checked by tsc)", async () => {
  const client = new SandportSandboxClient({ runtime: new RecordingRuntime() });
  const config: Partial<RunConfig> = { sandbox: { client } };
  const session = await client.create();
  const withSession: Partial<RunConfig> = { sandbox: { session } };
  assert.equal(config.sandbox?.client?.backendId, "sandport");
  assert.ok(withSession.sandbox?.session instanceof SandportSandboxSession);
});
