// Compile time (run by `tsc --noEmit`): what this package builds is assignable to the installed
// frameworks' types, and their member lists are exactly the ones implemented here. The AI SDK changes
// these experimental types in patch releases: a release that adds a member (required or optional)
// stops this file compiling, so the bump cannot pass unnoticed. The runtime tests check that the
// objects really carry those members.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { HarnessV1NetworkSandboxSession, HarnessV1SandboxProvider } from "@ai-sdk/harness";
import type { Exactly, Holds } from "@sandport/testkit/assertions";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import type { Experimental_SandboxSession } from "ai";
import type { Sandbox as BashToolFrameworkSandbox } from "bash-tool";
import { type BashToolSandbox, createBashToolSandbox } from "./bash-tool-sandbox.js";
import { createHarnessSandboxProvider } from "./harness-provider.js";
import { createSandboxSession } from "./session.js";

const SESSION_MEMBERS = [
  "description",
  "readFile",
  "readBinaryFile",
  "readTextFile",
  "writeFile",
  "writeBinaryFile",
  "writeTextFile",
  "stat",
  "listDirectory",
  "deleteFile",
  "spawn",
  "run",
] as const;
/** Members of the harness's network session this package implements, beyond the session's. */
const NETWORK_MEMBERS = [
  "id",
  "defaultWorkingDirectory",
  "ports",
  "getPortEndpoint",
  "getPortUrl",
  "stop",
  "destroy",
  "restricted",
  "setNetworkPolicy",
] as const;
/** Optional network-session members left out: the port has no request transformations or port changes. */
type OmittedNetworkMembers = "setRequestTransformations" | "addRequestTransformations" | "setPorts";
/**
 * Session members newer than the harness: @ai-sdk/harness 1.0.122 builds on an older
 * `Experimental_SandboxSession` (provider-utils 5.0.46) without them. Its sessions carry them anyway.
 */
type MembersNewerThanTheHarness = "stat" | "listDirectory" | "deleteFile";
const PROVIDER_MEMBERS = ["specificationVersion", "providerId", "createSession", "resumeSession"] as const;

export type Checks = [
  Holds<Exactly<keyof Experimental_SandboxSession, (typeof SESSION_MEMBERS)[number]>>,
  Holds<ReturnType<typeof createSandboxSession> extends Experimental_SandboxSession ? true : false>,
  Holds<
    Exactly<
      keyof HarnessV1NetworkSandboxSession,
      | Exclude<keyof Experimental_SandboxSession, MembersNewerThanTheHarness>
      | (typeof NETWORK_MEMBERS)[number]
      | OmittedNetworkMembers
    >
  >,
  Holds<Exactly<keyof HarnessV1SandboxProvider, (typeof PROVIDER_MEMBERS)[number]>>,
  Holds<ReturnType<typeof createHarnessSandboxProvider> extends HarnessV1SandboxProvider ? true : false>,
  Holds<Exactly<keyof BashToolFrameworkSandbox, keyof BashToolSandbox>>,
  Holds<BashToolSandbox extends BashToolFrameworkSandbox ? true : false>,
  Holds<BashToolFrameworkSandbox extends BashToolSandbox ? true : false>,
];

const sorted = (names: readonly string[]) => [...names].sort();

test("the objects carry exactly the members the type checks above name", async () => {
  const runtime = new RecordingRuntime();
  const handle = await runtime.launch({});
  assert.deepEqual(sorted(Object.keys(createSandboxSession({ runtime, handle }))), sorted(SESSION_MEMBERS));
  const provider = createHarnessSandboxProvider({ runtime });
  assert.deepEqual(sorted(Object.keys(provider)), sorted(PROVIDER_MEMBERS));
  const network = await provider.createSession();
  assert.deepEqual(sorted(Object.keys(network)), sorted([...SESSION_MEMBERS, ...NETWORK_MEMBERS]));
  assert.deepEqual(sorted(Object.keys(network.restricted())), sorted(SESSION_MEMBERS));
  assert.deepEqual(sorted(Object.keys(createBashToolSandbox({ runtime, handle }))), [
    "executeCommand",
    "readFile",
    "writeFiles",
  ]);
});
