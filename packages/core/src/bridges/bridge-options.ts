import { posix } from "node:path";
import { invalidRequest } from "../errors/factories.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { type KeyShape, refuseUnknownShape } from "../validation/known-keys.js";
import { validateTimeoutMs } from "../validation/numbers.js";

/** What every framework bridge is built from: the runtime, where commands start, how long they may run. */
export interface BridgeOptions<H extends SandboxHandle = SandboxHandle> {
  /** The runtime to run on: any Sandport runtime. */
  readonly runtime: SandboxRuntime<H>;
  /**
   * Where commands start when they name no working directory, and what a
   * relative working directory (and, where the bridge says so, a relative
   * path) resolves against: absolute inside the workspace, or relative to the
   * runtime's `workspaceRoot`. Default: the `workspaceRoot`. Not created.
   */
  readonly workingDirectory?: string;
  /**
   * Kills a command after this many milliseconds when the framework's call
   * sets no limit; its exit status is then 124 (see `exitStatus`). Default:
   * the runtime's run budget.
   */
  readonly commandTimeoutMs?: number;
}

/**
 * The keys of {@link BridgeOptions}, to spread into a bridge's own `KeyShape`
 * (`keyList<SandboxSessionOptions>({ ...BRIDGE_OPTION_SHAPE, handle: true, description: true })`).
 */
export const BRIDGE_OPTION_SHAPE: KeyShape<BridgeOptions> = Object.freeze({
  runtime: true,
  workingDirectory: true,
  commandTimeoutMs: true,
});

/**
 * Checks a bridge's options before it does anything: an object, with no key
 * beyond `known` (a typo is `INVALID_REQUEST` naming it and the nearest known
 * key), and, where present, `runtime` an object, `workingDirectory` a string
 * and `commandTimeoutMs` a duration.
 *
 * @param where the bridge's entry point, as the message's subject (`"createSandboxSession options"`)
 */
export function checkBridgeOptions(options: unknown, known: readonly string[], where: string): void {
  refuseUnknownShape(options, known, where);
  const given = options as Partial<BridgeOptions>;
  if (known.includes("runtime") && (typeof given.runtime !== "object" || given.runtime === null)) {
    throw invalidRequest(`${where}: runtime must be a Sandport runtime`, { field: "runtime" });
  }
  if (given.workingDirectory !== undefined && typeof given.workingDirectory !== "string") {
    throw invalidRequest(`${where}: workingDirectory must be a string`, { field: "workingDirectory" });
  }
  validateTimeoutMs(given.commandTimeoutMs, "commandTimeoutMs");
}

/** The absolute directory {@link BridgeOptions.workingDirectory} names. */
export function bridgeBaseDirectory(options: Pick<BridgeOptions, "runtime" | "workingDirectory">): string {
  const root = options.runtime.workspaceRoot;
  return options.workingDirectory === undefined ? root : posix.resolve(root, options.workingDirectory);
}
