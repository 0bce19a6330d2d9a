import type { OpOptions } from "../port/op-options.js";
import { checkSymlinkGuard, type GuardedPath, symlinkGuardScript } from "../shell/symlink-guard.js";
import { normalizeWorkspacePath, toSandboxPath } from "../validation/workspace-path.js";
import type { AdapterContext, ContextOptions } from "./adapter-context.js";
import type { OperationCall } from "./run-operation.js";

/** The options a context of {@link onGuardedPath} reads: the workspace and the file calls' deadline. */
export interface FileOptions extends ContextOptions {
  readonly workspaceRoot: string;
  readonly timeouts: { readonly fileMs: number };
}

/** A context the file recipes run on. */
export type FileContext<Instance> = AdapterContext<FileOptions, unknown, unknown, Instance>;

/** One sandbox of a file call, reached. */
export interface GuardSite<Instance> {
  readonly sandboxId: string;
  /** Its connected instance; `undefined` where the rule said `connect: false`. */
  readonly instance: Instance;
  readonly call: OperationCall;
}

/**
 * How an adapter runs the symlink guard's script: as a shell command in the
 * workspace directory (the script resolves `.`), resolving with its exit code
 * and output. Rejections pass through (the frame maps them).
 */
export type GuardRunner<Context, Instance> = (
  context: Context,
  script: string,
  site: GuardSite<Instance>,
) => Promise<{ readonly exitCode: number | null; readonly stdout: string; readonly stderr: string }>;

/**
 * Refuses (`INVALID_REQUEST`) paths that resolve outside the workspace through
 * a symlink: one command (`symlinkGuardScript`) for all of `paths`, except in
 * a sandbox this runtime launched and in which no command has run yet (only
 * this runtime's writes have touched it, and those never make symlinks).
 * For providers whose file API follows symlinks.
 */
export async function guardPaths<Context extends FileContext<Instance>, Instance>(
  context: Context,
  site: GuardSite<Instance>,
  paths: readonly GuardedPath[],
  runGuard: GuardRunner<Context, Instance>,
): Promise<void> {
  if (context.known.isPristine(site.sandboxId)) return;
  checkSymlinkGuard(paths, await runGuard(context, symlinkGuardScript(paths), site), context.provider);
}

/** Which path a single-path file operation acts on, and how. */
export interface PathRule {
  /** The port method, in errors (with the absolute path). */
  readonly operation: string;
  /** The caller's workspace-relative path, not yet validated. */
  readonly path: unknown;
  /** Whether the workspace root itself is allowed. */
  readonly allowRoot: boolean;
  /** See `GuardedPath.followFinal`. */
  readonly followFinal: boolean;
  /** `false` for an adapter whose SDK has no per-sandbox instance: ownership is checked, nothing connected. */
  readonly connect?: boolean;
}

/** What the work of {@link onGuardedPath} is given: the sandbox reached and the path validated. */
export interface GuardedTarget<Instance> extends GuardSite<Instance> {
  /** Workspace-relative (`""` for the root). */
  readonly relative: string;
  /** Absolute inside the sandbox. */
  readonly absolute: string;
}

/**
 * The frame of every single-path file operation: the path validated against
 * the workspace (`INVALID_REQUEST` before any request), the call run on the
 * handle's owned sandbox within `timeouts.fileMs` (its connected instance,
 * unless `rule.connect` is `false`), {@link guardPaths} on the path, then `work`.
 */
export async function onGuardedPath<Context extends FileContext<Instance>, Instance, T>(
  context: Context,
  handle: unknown,
  op: OpOptions | undefined,
  rule: PathRule,
  runGuard: GuardRunner<Context, Instance>,
  work: (target: GuardedTarget<Instance>) => Promise<T>,
): Promise<T> {
  const root = context.options.workspaceRoot;
  const relative = normalizeWorkspacePath(rule.path, { root, allowRoot: rule.allowRoot, provider: context.provider });
  const absolute = toSandboxPath(root, relative);
  const { operation } = rule;
  return context.onHandle(
    handle,
    op,
    { operation, path: absolute },
    context.options.timeouts.fileMs,
    async (id, call) => {
      let instance: Instance;
      if (rule.connect === false) {
        await context.assertOwned(id, operation, call);
        instance = undefined as Instance;
      } else {
        instance = await context.instance(id, operation, call);
      }
      const site = { sandboxId: id, instance, call };
      await guardPaths(context, site, [{ relative, followFinal: rule.followFinal }], runGuard);
      return work({ ...site, relative, absolute });
    },
  );
}
