// examples/mastra.ts — a Sandport sandbox as a Mastra workspace: its sandbox runs commands and its
// filesystem holds the files, both the same Sandport sandbox. Agents given this workspace get Mastra's
// workspace tools over it.
import { Workspace } from "@mastra/core/workspace";
import { LocalRuntime } from "sandport/local";
import { createMastraFilesystem, createMastraSandbox } from "sandport/mastra";

const runtime = new LocalRuntime();
const sandbox = await createMastraSandbox({ runtime });
const filesystem = createMastraFilesystem({ runtime, handle: () => sandbox.sandboxHandle() });
const workspace = new Workspace({ sandbox, filesystem });
try {
  await workspace.filesystem?.writeFile("hello.sh", 'echo "hello from $(uname -s)"');
  const result = await workspace.sandbox?.executeCommand?.("sh", ["hello.sh"]);
  console.log(result?.exitCode, result?.stdout.trim());
  const server = await workspace.sandbox?.processes?.spawn("sleep 30");
  console.log("background processes:", (await workspace.sandbox?.processes?.list())?.length);
  await server?.kill();
} finally {
  await sandbox.destroy?.();
}
