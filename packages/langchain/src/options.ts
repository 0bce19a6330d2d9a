import { posix } from "node:path";
import {
  BRIDGE_OPTION_SHAPE,
  type BridgeOptions,
  bridgeBaseDirectory,
  checkBridgeOptions,
  describeValue,
  invalidRequest,
  keyList,
  type LaunchSpec,
  normalizeWorkspacePath,
  type SandboxHandle,
  validateLaunchSpec,
} from "@sandport/core";

/**
 * What a {@link SandportDeepAgentsSandbox} is built from: core's
 * `BridgeOptions` (the runtime; `workingDirectory`, where `execute` runs and
 * what relative upload, download and initial-file paths resolve against,
 * default the workspace root; `commandTimeoutMs`, each `execute` call's run
 * budget, default the runtime's), and either the sandbox (`handle`: running
 * from construction) or what `initialize()` launches (`launch`,
 * `initialFiles`).
 */
export interface DeepAgentsSandboxOptions<H extends SandboxHandle = SandboxHandle> extends BridgeOptions<H> {
  /**
   * A sandbox you hold: the instance is running from construction (as the
   * framework's `fromId` gives one), `initialize()` is `ALREADY_INITIALIZED`,
   * and `close()` destroys it.
   */
  readonly handle?: H;
  /** What `initialize()` launches when there is no `handle` (labels, template, env, ...). Default: `{}`. */
  readonly launch?: LaunchSpec;
  /**
   * Files `initialize()` writes right after the launch, path to content (text
   * as UTF-8), as the framework's sandboxes' `initialFiles`. Paths resolve
   * against the working directory and must lie in the workspace.
   */
  readonly initialFiles?: Readonly<Record<string, string | Uint8Array>>;
}

/** Every key of {@link DeepAgentsSandboxOptions}; any other is refused, naming the nearest known one. */
export const DEEP_AGENTS_SANDBOX_OPTION_KEYS = keyList<DeepAgentsSandboxOptions>({
  ...BRIDGE_OPTION_SHAPE,
  handle: true,
  launch: true,
  initialFiles: true,
});

/** Every key of `fromId`'s options: core's `BridgeOptions`. */
export const FROM_ID_OPTION_KEYS = keyList<BridgeOptions>(BRIDGE_OPTION_SHAPE);

/** Every key of `deleteAll`'s options: the runtime. */
export const DELETE_ALL_OPTION_KEYS = keyList<Pick<BridgeOptions, "runtime">>({ runtime: true });

/** {@link DeepAgentsSandboxOptions} checked, with the launch spec and initial files in the shape the bridge uses. */
export interface CheckedSandboxOptions {
  /** The absolute directory commands run in and relative paths resolve against. */
  readonly base: string;
  /** What `initialize()` launches. */
  readonly launch: LaunchSpec;
  /** The initial files as `uploadFiles` takes them, absolute paths, in the order given. */
  readonly initialFiles: Array<[string, Uint8Array]>;
}

/**
 * Checks a sandbox's options before anything reaches the runtime: an unknown
 * key, a malformed launch spec, an initial file outside the workspace or
 * whose content is neither text nor bytes, and `launch` or `initialFiles`
 * beside a `handle` (nothing would launch) are `INVALID_REQUEST`.
 */
export function checkSandboxOptions(options: unknown, where: string): CheckedSandboxOptions {
  checkBridgeOptions(options, DEEP_AGENTS_SANDBOX_OPTION_KEYS, where);
  const given = options as DeepAgentsSandboxOptions;
  const provider = given.runtime.provider;
  if (given.handle !== undefined) {
    if (typeof given.handle !== "object" || given.handle === null || typeof given.handle.id !== "string") {
      throw invalidRequest(`${where}: handle must be a Sandport sandbox handle`, { field: "handle" }, provider);
    }
    for (const field of ["launch", "initialFiles"] as const) {
      if (given[field] !== undefined) {
        throw invalidRequest(
          `${where}: ${field} is for the sandbox initialize() launches, and with a handle nothing is launched`,
          { field },
          provider,
        );
      }
    }
  }
  const base = bridgeBaseDirectory(given);
  const launch = validateLaunchSpec(given.launch, provider);
  const files = given.initialFiles;
  if (files !== undefined && (typeof files !== "object" || files === null || Array.isArray(files))) {
    throw invalidRequest(
      `${where}: initialFiles must be an object of path to content`,
      { field: "initialFiles" },
      provider,
    );
  }
  const encoder = new TextEncoder();
  const initialFiles = Object.entries(files ?? {}).map(([path, content]): [string, Uint8Array] => {
    const field = `initialFiles[${JSON.stringify(path)}]`;
    const absolute = posix.resolve(base, path);
    normalizeWorkspacePath(absolute, { root: given.runtime.workspaceRoot, provider, field });
    if (typeof content === "string") return [absolute, encoder.encode(content)];
    if (content instanceof Uint8Array) return [absolute, content];
    throw invalidRequest(
      `${where}: ${field} must be a string or a Uint8Array, got ${describeValue(content)}`,
      { field },
      provider,
    );
  });
  return { base, launch, initialFiles };
}
