import { posix } from "node:path";
import type { SandboxHandle, SandboxRuntime } from "@sandport/core";
import type { MastraWorkspaceModule } from "./internal/sdk-types.js";

/** What the sandbox, its process manager and its handles share. */
export interface BridgeContext<H extends SandboxHandle = SandboxHandle> {
  readonly mastra: MastraWorkspaceModule;
  readonly runtime: SandboxRuntime<H>;
  /** The sandbox, once `start()` has acquired it (it runs first on every call). */
  readonly handle: () => H;
  /** The absolute default working directory. */
  readonly base: string;
  readonly commandTimeoutMs: number | undefined;
  /** The sandbox's environment overlay (`setEnv`) at the time of the call. */
  readonly env: () => Record<string, string | undefined>;
}

/**
 * `cwd` for a command: the base when absent, else resolved against it, as
 * Mastra's `LocalSandbox` does; an absolute one (`/tmp`) is kept, and may be
 * any directory of the sandbox.
 */
export function commandCwd(context: BridgeContext, cwd: string | undefined): string {
  return cwd === undefined ? context.base : posix.resolve(context.base, cwd);
}

/** The overlay merged under a call's own environment, without the unset (`undefined`) names. */
export function commandEnv(
  context: BridgeContext,
  env: Record<string, string | undefined> | undefined,
): Record<string, string> {
  const merged = { ...context.env(), ...env };
  return Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
