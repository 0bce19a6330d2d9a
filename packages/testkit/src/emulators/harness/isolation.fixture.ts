// For tests of what only an isolated default backend shows: the reason to skip them, printed by node:test.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { env } from "node:process";
import { LocalRuntime } from "@sandport/local";
import { defaultBackendIsolation, destroyEverySandbox } from "./backend.js";

/**
 * A namespaced `LocalRuntime` with its workspace at `workspaceRoot`, with the
 * `namespaceScope` the default backend uses here and its `hostNetwork`, in a fresh root that `dispose` removes.
 */
export async function shapedBackend(
  workspaceRoot: string,
): Promise<{ runtime: LocalRuntime; dispose(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "sandport-emulator-shaped-"));
  const isolation = await defaultBackendIsolation();
  const namespaceScope = isolation.isolated ? isolation.namespaceScope : "command";
  const runtime = new LocalRuntime({ root, isolation: "namespaces", workspaceRoot, namespaceScope, hostNetwork: true });
  return {
    runtime,
    dispose: async () => {
      await destroyEverySandbox(runtime);
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/**
 * `undefined` when the default emulator backend runs sandboxes under
 * bubblewrap here, else why tests of the provider's paths and loopback skip.
 * With `SANDPORT_REQUIRE_BWRAP=1` (CI) an unusable bubblewrap throws instead.
 */
export async function isolationSkipReason(): Promise<string | undefined> {
  const isolation = await defaultBackendIsolation();
  if (isolation.isolated) return undefined;
  if (env.SANDPORT_REQUIRE_BWRAP === "1") throw new Error(`bubblewrap is required but unusable: ${isolation.reason}`);
  return `emulated sandboxes are host directories here (no namespaces): ${isolation.reason}`;
}

/**
 * A Python program that binds `127.0.0.1:<port>`, then says `bound` on stdout and in a file
 * `bound-<port>` in its working directory, and stays up: run it in one sandbox, then
 * {@link probeScript} in another.
 */
export function bindScript(port: number): string {
  const announce = `print("bound",flush=True);open("bound-${port}","w").close()`;
  return `python3 -c 'import socket,time;s=socket.socket();s.bind(("127.0.0.1",${port}));s.listen();${announce};time.sleep(120)'`;
}

/** Prints `open` when something listens on `127.0.0.1:<port>` as this sandbox sees it, else `closed`. */
export function probeScript(port: number): string {
  return `python3 -c 'import socket;s=socket.socket();print("open" if s.connect_ex(("127.0.0.1",${port}))==0 else "closed")'`;
}

/**
 * `undefined` when the default backend gives each sandbox one set of
 * namespaces (`namespaceScope: "sandbox"`: its commands share processes and
 * loopback), else why tests of that skip.
 */
export async function sharedNamespacesSkipReason(): Promise<string | undefined> {
  const isolation = await defaultBackendIsolation();
  if (isolation.isolated && isolation.namespaceScope === "sandbox") return undefined;
  return isolation.isolated
    ? "each command has namespaces of its own here (a shared set per sandbox needs a root runtime)"
    : `emulated sandboxes are host directories here (no namespaces): ${isolation.reason}`;
}
