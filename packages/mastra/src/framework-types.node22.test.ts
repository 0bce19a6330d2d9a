// Compile time (run by `tsc --noEmit`): what this package builds is Mastra's `WorkspaceSandbox` and
// `WorkspaceFilesystem`, and their member lists are exactly the ones implemented or deliberately left
// out here: a Mastra release that adds a member stops this file compiling. The runtime test checks the
// objects carry the implemented members.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { WorkspaceFilesystem, WorkspaceSandbox } from "@mastra/core/workspace";
import type { Exactly, Holds } from "@sandport/testkit/assertions";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { createMastraFilesystem } from "./filesystem.js";
import { createMastraSandbox, type SandportWorkspaceSandbox } from "./sandbox.js";

const FILESYSTEM_MEMBERS = [
  "id",
  "name",
  "provider",
  "readOnly",
  "status",
  "getInstructions",
  "readFile",
  "writeFile",
  "appendFile",
  "deleteFile",
  "copyFile",
  "moveFile",
  "mkdir",
  "rmdir",
  "readdir",
  "exists",
  "stat",
] as const;
/** Optional filesystem members left out: lifecycle hooks, UI hints, mounting, and fast paths Mastra falls back from. */
type OmittedFilesystemMembers =
  | "error"
  | "init"
  | "destroy"
  | "isReady"
  | "getInfo"
  | "basePath"
  | "icon"
  | "displayName"
  | "description"
  | "getMountConfig"
  | "realpath"
  | "walk"
  | "grep"
  | "isTextFile"
  | "resolveAbsolutePath";

/** Sandbox members this package implements, or inherits from Mastra's own `MastraSandbox`. */
const SANDBOX_MEMBERS = [
  "id",
  "name",
  "provider",
  "status",
  "start",
  "stop",
  "destroy",
  "getInfo",
  "snapshot",
  "supportsCheckpoints",
  "getInstructions",
  "executeCommand",
  "writeFiles",
  "setEnv",
  "setOnStart",
  "processes",
  "networking",
] as const;
/** Optional sandbox members left out: the port has no desktop, no mounts and no cloning of a configuration. */
type OmittedSandboxMembers = "error" | "isReady" | "clone" | "computer" | "mounts" | "mount" | "unmount";

export type Checks = [
  Holds<Exactly<keyof WorkspaceFilesystem, (typeof FILESYSTEM_MEMBERS)[number] | OmittedFilesystemMembers>>,
  Holds<ReturnType<typeof createMastraFilesystem> extends WorkspaceFilesystem ? true : false>,
  Holds<Exactly<keyof WorkspaceSandbox, (typeof SANDBOX_MEMBERS)[number] | OmittedSandboxMembers>>,
  Holds<SandportWorkspaceSandbox extends WorkspaceSandbox ? true : false>,
];

test("the objects carry the members the type checks above name", async () => {
  const runtime = new RecordingRuntime();
  const handle = await runtime.launch({});
  const filesystem = createMastraFilesystem({ runtime, handle });
  assert.deepEqual(Object.keys(filesystem).sort(), [...FILESYSTEM_MEMBERS].sort());
  const sandbox = await createMastraSandbox({ runtime: new RecordingRuntime() });
  const conditional = new Set(["processes", "networking"]); // present only where the runtime can
  for (const member of SANDBOX_MEMBERS) {
    if (!conditional.has(member)) assert.ok(sandbox[member] !== undefined, `the sandbox has ${member}`);
  }
});
