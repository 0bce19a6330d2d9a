import { invalidRequest } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import type { FileInput } from "../port/file-input.js";
import { DIRECTORY_EXIT, encodeFileArchive, fileArchiveScript } from "../shell/file-archive.js";
import type { FileContext, GuardedWrite, GuardSite } from "./guarded-path.js";

/**
 * How an adapter whose file API takes one file per request sends many files
 * in one command instead: an archive (`encodeFileArchive`) on the stdin of
 * `fileArchiveScript`, which writes each file whole (temporary name, mode,
 * rename). Used for the batches `use` picks.
 */
export interface FileArchiveWrite<Context, Instance> {
  /**
   * Whether a batch of `files` files, whose archive takes at most `bytes`,
   * goes as one archive (fewer requests than one write per file, and within
   * what the provider's stdin takes); otherwise the recipe's `write` runs.
   * `context` is the call's (its options may choose another transport).
   */
  use(files: number, bytes: number, context: Context): boolean;
  /**
   * `true` when `run` starts the script in the workspace (as the symlink
   * guard's runner does): the script then names no absolute path, which is
   * what an emulator that maps only the working directory needs. Otherwise
   * the script makes and enters the workspace itself.
   */
  readonly startsInWorkspace?: boolean;
  /**
   * Runs `script` (POSIX `sh`) with `stdin` as its standard input, to
   * completion, resolving with its exit code and output. Rejections pass through.
   */
  run(
    context: Context,
    script: string,
    stdin: Uint8Array,
    site: GuardSite<Instance>,
  ): Promise<{ readonly exitCode: number | null; readonly stdout: string; readonly stderr: string }>;
}

/**
 * The `use` of a provider whose file API takes one file per request and whose
 * command takes up to `inlineStdinBytes` of stdin in the request itself (two
 * requests above: the stdin uploaded first): an archive is fewer requests
 * for 3 files or more of any size, and for 2 whose archive fits inline.
 */
export function archiveBeatsFileRequests(inlineStdinBytes: number): (files: number, bytes: number) => boolean {
  return (files, bytes) => files >= 3 || (files === 2 && bytes <= inlineStdinBytes);
}

/** Bytes of an archive's framing beyond its contents and manifest lines: the header and the manifest's padding. */
const FRAME_BYTES = 64 + 512;
/** A manifest line's bytes beyond its path: mode, offset, length, spaces, newline. */
const LINE_BYTES = 48;
/** A `\0ooo` escape per UTF-8 byte, up to 3 bytes per UTF-16 unit. */
const PATH_BYTES_PER_UNIT = 15;
/** Alignment padding before a content of 4 KiB or more, at most. */
const ALIGN_BYTES = 511;

/**
 * Whether `files` (the caller's input, not yet validated) go as one archive:
 * `rule.use` asked with their count, an upper bound of their archive's
 * size and the call's context. Input the validation will refuse counts as
 * nothing: it never reaches a write.
 */
export function sendsAsArchive<Context>(
  files: readonly FileInput[],
  rule: Pick<FileArchiveWrite<Context, unknown>, "use">,
  context: Context,
): boolean {
  if (!Array.isArray(files) || files.length === 0) return false;
  let bound = FRAME_BYTES;
  for (const file of files as readonly Partial<FileInput>[]) {
    const content = file?.content;
    const bytes =
      typeof content === "string" ? Buffer.byteLength(content) : content instanceof Uint8Array ? content.byteLength : 0;
    const path = typeof file?.path === "string" ? file.path.length : 0;
    bound += bytes + LINE_BYTES + PATH_BYTES_PER_UNIT * path + (bytes >= 4096 ? ALIGN_BYTES : 0);
  }
  return rule.use(files.length, bound, context);
}

/**
 * Writes the validated, guarded files of `target` as one archive through
 * `rule.run`. A path that is a directory is `INVALID_REQUEST`, as a file
 * API refuses it; another failure of the script is `UNEXPECTED` with its
 * message. Files before the one that failed may be written, as with
 * per-file writes.
 */
export async function writeFileArchive<Context extends FileContext<Instance>, Instance>(
  context: Context,
  target: GuardedWrite<Instance>,
  rule: FileArchiveWrite<Context, Instance>,
): Promise<void> {
  const { files, ...site } = target;
  const script = fileArchiveScript(rule.startsInWorkspace === true ? undefined : context.options.workspaceRoot);
  const result = await rule.run(context, script, encodeFileArchive(files), site);
  if (result.exitCode === 0) return;
  const reason = result.stderr.trim();
  if (result.exitCode === DIRECTORY_EXIT) {
    throw invalidRequest(`${reason.replace(/^sandport files: /, "")}: cannot write a file there`, {}, context.provider);
  }
  throw new SandportError({
    code: "UNEXPECTED",
    provider: context.provider,
    retryable: false,
    message: `${context.provider} could not write the files in sandbox ${site.sandboxId}: ${reason || `exit ${result.exitCode}`}`,
    details: { sandboxId: site.sandboxId, exitCode: result.exitCode, files: files.length },
  });
}
