import type { FileInfo } from "../port/file-info.js";
import type { FileInput } from "../port/file-input.js";
import type { OpOptions } from "../port/op-options.js";
import type { ReadOptions } from "../port/read-options.js";
import { guardedReadOutputBytes, guardedReadScript, readCommandOutcome } from "../shell/guarded-read.js";
import { readLimitExceeded, validateReadOptions } from "../validation/read-options.js";
import { type FileArchiveWrite, sendsAsArchive, writeFileArchive } from "./file-archive-write.js";
import {
  type FileContext,
  type GuardedTarget,
  type GuardedWrite,
  onGuardedFiles,
  onGuardedPath,
  type WorkspaceRunner,
} from "./guarded-path.js";

/** What every guarded file recipe is told: how the adapter runs its scripts, and whether it connects. */
export interface GuardedFileSettings<Context, Instance> {
  /** How the symlink guard (and `chmod`) runs in the workspace. */
  readonly inWorkspace: WorkspaceRunner<Context, Instance>;
  /** `false` for an adapter whose SDK has no per-sandbox instance: ownership is checked, nothing connected. */
  readonly connect?: boolean;
}

/** What {@link guardedFiles} is built from: the vendor's write and read on a guarded sandbox. */
export interface GuardedFilesRecipe<Context, Instance> extends GuardedFileSettings<Context, Instance> {
  /** The mode the vendor gives a written file (others get theirs from one `chmod`); absent: the write sets modes. */
  readonly writtenMode?: number;
  /** Writes the validated files (every path already guarded). */
  write(context: Context, target: GuardedWrite<Instance>): Promise<void>;
  /**
   * For a file API that takes one file per request: many files sent as one
   * archive through one command instead of `write` (modes set by it, no
   * `chmod` after). Absent: every batch goes through `write`.
   */
  readonly archive?: FileArchiveWrite<Context, Instance>;
  /**
   * Reads one file's bytes (its path validated and guarded, its final symlink
   * followed). `maxBytes` is the call's cap: a read that streams may stop past
   * it with `OUTPUT_LIMIT`; a larger result is refused after it anyway.
   */
  read(context: Context, target: GuardedReadTarget<Instance>): Promise<Uint8Array>;
  /**
   * Reads guarded in the same call: where set, `readFile` in a sandbox where
   * commands have run is one command through `inWorkspace`
   * ({@link guardedReadScript}) that resolves the path, refuses it when it
   * leaves the workspace, and prints the file when it has at most
   * `inlineBytes` (refusing it with `OUTPUT_LIMIT` past `maxBytes`); a larger
   * file is downloaded with `read` after it. Absent: the symlink guard, then
   * `read`. A sandbox where no command has run is read with `read` alone.
   * `inlineBytes` may depend on the context (an adapter whose download is
   * itself a command prints every file).
   */
  readonly commandRead?: { readonly inlineBytes: number | ((context: Context) => number) };
}

/** What a recipe's `read` is given: the guarded target and the call's `maxBytes`. */
export interface GuardedReadTarget<Instance> extends GuardedTarget<Instance> {
  /** The largest file the call returns (validated; the default applied). */
  readonly maxBytes: number;
}

/** An adapter's `writeFiles` and `readFile`, each taking its context first. */
export interface GuardedFiles<Context> {
  writeFiles(context: Context, handle: unknown, files: readonly FileInput[], op?: OpOptions): Promise<void>;
  readFile(context: Context, handle: unknown, path: string, op?: ReadOptions): Promise<Uint8Array>;
}

/**
 * `writeFiles` (`onGuardedFiles` with the recipe's `writtenMode`; a batch the
 * recipe's `archive.use` picks: one archive written by one command) and
 * `readFile` (`onGuardedPath`: the workspace root refused, the final symlink
 * followed) from the vendor's write and read. `readFile` validates its
 * `maxBytes` before any request, and refuses a larger file with
 * `OUTPUT_LIMIT` once downloaded (the vendors' reads cannot be capped), or
 * from the size its guarded read command reports (`recipe.commandRead`).
 */
export function guardedFiles<Context extends FileContext<Instance>, Instance>(
  recipe: GuardedFilesRecipe<Context, Instance>,
): GuardedFiles<Context> {
  const { inWorkspace, connect } = recipe;
  const reach = connect === undefined ? {} : { connect };
  const writeRule = { ...reach, ...(recipe.writtenMode === undefined ? {} : { writtenMode: recipe.writtenMode }) };
  return {
    writeFiles: (context, handle, files, op) => {
      const archive =
        recipe.archive !== undefined && sendsAsArchive(files, recipe.archive, context) ? recipe.archive : undefined;
      if (archive === undefined) {
        return onGuardedFiles(context, handle, files, op, writeRule, inWorkspace, (target) =>
          recipe.write(context, target),
        );
      }
      // The archive's script gives every file its mode: no chmod after it.
      return onGuardedFiles(context, handle, files, op, reach, inWorkspace, (target) =>
        writeFileArchive(context, target, archive),
      );
    },
    readFile: async (context, handle, path, options) => {
      const { op, maxBytes } = validateReadOptions(options, context.provider);
      const guard = recipe.commandRead === undefined ? {} : { guard: false };
      const rule = { operation: "readFile", path, allowRoot: false, followFinal: true, ...reach, ...guard };
      return onGuardedPath(context, handle, op, rule, inWorkspace, async (target) => {
        if (recipe.commandRead !== undefined && !context.known.isPristine(target.sandboxId)) {
          const { inlineBytes } = recipe.commandRead;
          const limit = Math.min(typeof inlineBytes === "number" ? inlineBytes : inlineBytes(context), maxBytes);
          const printed = await readInCommand(context, target, inWorkspace, limit, maxBytes);
          if (printed !== undefined) return printed;
        }
        const bytes = await recipe.read(context, { ...target, maxBytes });
        // The vendors' reads have no cap: the file is downloaded whole, then refused.
        if (bytes.byteLength > maxBytes) {
          throw readLimitExceeded(context.provider, target.absolute, bytes.byteLength, maxBytes);
        }
        return bytes;
      });
    },
  };
}

/**
 * One guarded read command (`guardedReadScript`): the file's bytes when it
 * printed them, `undefined` when the path stays inside but the file is left
 * to the vendor's read (larger than `inlineBytes`, not a regular file, or
 * its output cut). Refuses an escape, a missing file, and a file whose
 * printed size passes `maxBytes` (nothing downloaded).
 */
async function readInCommand<Context extends FileContext<Instance>, Instance>(
  context: Context,
  target: GuardedTarget<Instance>,
  inWorkspace: WorkspaceRunner<Context, Instance>,
  inlineBytes: number,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const script = guardedReadScript(target.relative, inlineBytes);
  const result = await inWorkspace(context, script, target, guardedReadOutputBytes(inlineBytes));
  const details = { sandboxId: target.sandboxId, path: target.absolute, operation: "readFile" };
  const outcome = readCommandOutcome(target.relative, result, context.provider, details);
  if (outcome.kind === "download") return undefined;
  const size = outcome.kind === "read" ? outcome.bytes.byteLength : outcome.size;
  if (size > maxBytes) throw readLimitExceeded(context.provider, target.absolute, size, maxBytes);
  // A file grown past `inlineBytes` since its size was taken: the vendor's read.
  return outcome.kind === "read" && size <= inlineBytes ? outcome.bytes : undefined;
}

/** What {@link guardedFileOps} is built from: the vendor's four calls on a guarded path. */
export interface GuardedFileOpsRecipe<Context, Instance> extends GuardedFileSettings<Context, Instance> {
  /** Entries of the directory (the root allowed, its final symlink followed). */
  listDir(context: Context, target: GuardedTarget<Instance>): Promise<FileInfo[]>;
  /** The entry's metadata (the root allowed; a final symlink is reported as itself). */
  stat(context: Context, target: GuardedTarget<Instance>): Promise<FileInfo>;
  /** Creates the directory and its parents (the root allowed). */
  mkdir(context: Context, target: GuardedTarget<Instance>): Promise<void>;
  /** Removes the entry (the root refused; a final symlink removed as itself). */
  remove(context: Context, target: GuardedTarget<Instance>): Promise<void>;
}

/** An adapter's `listDir`, `stat`, `mkdir` and `remove`, each taking its context first. */
export interface GuardedFileOps<Context> {
  listDir(context: Context, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo[]>;
  stat(context: Context, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo>;
  mkdir(context: Context, handle: unknown, path: string, op?: OpOptions): Promise<void>;
  remove(context: Context, handle: unknown, path: string, op?: OpOptions): Promise<void>;
}

/**
 * The port's file operations (`listDir`, `stat`, `mkdir`, `remove`), each in
 * `onGuardedPath` with the port's rules: only `remove` refuses the workspace
 * root, and `stat` and `remove` act on a final symlink itself.
 *
 * A launch sends no request to make the workspace (its first use makes it),
 * so the root of a sandbox nothing has used yet may not exist: `listDir` of
 * it lists nothing (an unmade workspace is empty), and `stat` of it makes it
 * with the recipe's `mkdir`, then asks again. Any other path the vendor
 * reports missing stays `NOT_FOUND`.
 */
export function guardedFileOps<Context extends FileContext<Instance>, Instance>(
  recipe: GuardedFileOpsRecipe<Context, Instance>,
): GuardedFileOps<Context> {
  const reach = recipe.connect === undefined ? {} : { connect: recipe.connect };
  type Work<T> = (context: Context, target: GuardedTarget<Instance>) => Promise<T>;
  const on =
    <T>(operation: string, allowRoot: boolean, followFinal: boolean, work: Work<T>) =>
    (context: Context, handle: unknown, path: string, op?: OpOptions): Promise<T> => {
      const rule = { operation, path, allowRoot, followFinal, ...reach };
      return onGuardedPath(context, handle, op, rule, recipe.inWorkspace, (target) => work(context, target));
    };
  // As the adapter's mapper reads it: a recipe may throw the SDK's own error.
  const unmadeRoot = (context: Context, target: GuardedTarget<Instance>, error: unknown) =>
    target.relative === "" && context.mapError.isNotFound(error);
  return {
    listDir: on("listDir", true, true, (context, target) =>
      recipe.listDir(context, target).catch((error: unknown) => {
        if (unmadeRoot(context, target, error)) return [];
        throw error;
      }),
    ),
    stat: on("stat", true, false, (context, target) =>
      recipe.stat(context, target).catch(async (error: unknown) => {
        if (!unmadeRoot(context, target, error)) throw error;
        await recipe.mkdir(context, target);
        return recipe.stat(context, target);
      }),
    ),
    mkdir: on("mkdir", true, true, (context, target) => recipe.mkdir(context, target)),
    remove: on("remove", false, false, (context, target) => recipe.remove(context, target)),
  };
}
