import type { FileInput } from "../port/file-input.js";
import type { OpOptions } from "../port/op-options.js";
import { chmodFailure, chmodScript, modesToSet } from "../shell/chmod.js";
import { checkSymlinkGuard, type GuardedPath, symlinkGuardScript } from "../shell/symlink-guard.js";
import { type ValidatedFile, validateFiles } from "../validation/requests.js";
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
 * How an adapter runs one of its own scripts (the symlink guard, `chmod`, a
 * guarded read): as a shell command in the workspace directory (the guard
 * resolves `.`, chmod names relative paths), resolving with its exit code and
 * output. `maxOutputBytes`, where given, is the output the script needs (a
 * guarded read's base64): a runner may pass it on as its cap, or keep its own
 * (the read then falls back to a download when its output is cut).
 * Rejections pass through (the frame maps them).
 */
export type WorkspaceRunner<Context, Instance> = (
  context: Context,
  script: string,
  site: GuardSite<Instance>,
  maxOutputBytes?: number,
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
  inWorkspace: WorkspaceRunner<Context, Instance>,
): Promise<void> {
  if (context.known.isPristine(site.sandboxId)) return;
  checkSymlinkGuard(paths, await inWorkspace(context, symlinkGuardScript(paths), site), context.provider);
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
  /** `false` where `work` resolves the path itself, in the same command that does the work (a guarded read): no {@link guardPaths}. */
  readonly guard?: boolean;
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
 * unless `rule.connect` is `false`), {@link guardPaths} on the path (unless
 * `rule.guard` is `false`), then `work`.
 */
export async function onGuardedPath<Context extends FileContext<Instance>, Instance, T>(
  context: Context,
  handle: unknown,
  op: OpOptions | undefined,
  rule: PathRule,
  inWorkspace: WorkspaceRunner<Context, Instance>,
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
      if (rule.guard !== false) {
        await guardPaths(context, site, [{ relative, followFinal: rule.followFinal }], inWorkspace);
      }
      return work({ ...site, relative, absolute });
    },
  );
}

/** How `writeFiles` treats what it wrote. */
export interface WriteRule {
  /** The mode the vendor gives a written file; others get theirs from one `chmod` afterwards. Absent: the write sets modes. */
  readonly writtenMode?: number;
  /** `false` for an adapter whose SDK has no per-sandbox instance: ownership is checked, nothing connected. */
  readonly connect?: boolean;
}

/** What the write of {@link onGuardedFiles} is given: the sandbox reached and the files validated. */
export interface GuardedWrite<Instance> extends GuardSite<Instance> {
  /** The files, each path workspace-relative and checked. */
  readonly files: readonly ValidatedFile[];
}

/**
 * The frame of `writeFiles` on a provider whose file API follows symlinks:
 * every path validated (`INVALID_REQUEST` before any request), nothing more
 * for an empty list, the call on the owned sandbox within `timeouts.fileMs`,
 * {@link guardPaths} on every path in one script, `write`, then (with
 * `rule.writtenMode`) one `chmod` in the workspace for files asking for
 * another mode (`chmodFailure` when it fails).
 */
export async function onGuardedFiles<Context extends FileContext<Instance>, Instance>(
  context: Context,
  handle: unknown,
  files: readonly FileInput[],
  op: OpOptions | undefined,
  rule: WriteRule,
  inWorkspace: WorkspaceRunner<Context, Instance>,
  write: (target: GuardedWrite<Instance>) => Promise<void>,
): Promise<void> {
  const valid = validateFiles(files, { root: context.options.workspaceRoot, provider: context.provider });
  return context.onHandle(handle, op, "writeFiles", context.options.timeouts.fileMs, async (sandboxId, call) => {
    if (valid.length === 0) return;
    const instance = (await reach(context, sandboxId, "writeFiles", call, rule.connect)) as Instance;
    const site = { sandboxId, instance, call };
    const paths = valid.map((file) => ({ relative: file.path, followFinal: true }));
    await guardPaths(context, site, paths, inWorkspace);
    await write({ ...site, files: valid });
    const modes = rule.writtenMode === undefined ? new Map() : modesToSet(valid, rule.writtenMode);
    if (modes.size === 0) return;
    const result = await inWorkspace(context, chmodScript(modes), site);
    if (result.exitCode !== 0) throw chmodFailure(context.provider, sandboxId, result.exitCode, result.stderr);
  });
}

/** The sandbox's connected instance, or (`connect: false`) only its ownership checked. */
async function reach<Instance>(
  context: FileContext<Instance>,
  sandboxId: string,
  operation: string,
  call: OperationCall,
  connect: boolean | undefined,
): Promise<Instance> {
  if (connect !== false) return context.instance(sandboxId, operation, call);
  await context.assertOwned(sandboxId, operation, call);
  return undefined as Instance;
}
