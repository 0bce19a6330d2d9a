import { posix } from "node:path";
import {
  type FileInfo,
  type FileKind,
  invalidRequest,
  normalizeWorkspacePath,
  type OpOptions,
  quoteShellArg,
  SandportError,
} from "@sandport/core";
import type { PathRule } from "@sandport/core/adapter";
import type { DaytonaContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { runInWorkspace } from "./run-script.js";

/**
 * `listDir`, `stat`, `mkdir` and `remove`, each one command run in the
 * workspace. Daytona's file API follows symlinks (its `stat` and listings
 * report a link's target, and skip dangling links), so these use `find` and
 * the shell instead, which see a symlink as itself; each first checks, in the
 * same command, that the path does not resolve outside the workspace through
 * a symlink. Needs GNU `find` and `realpath` in the sandbox (Daytona's images
 * have them).
 */

/** Exit codes of the scripts below. */
const ESCAPES = 64;
const NOT_A_DIRECTORY = 65;
const MISSING = 66;
/** What the path is, by the exit code of a script that refused it. */
const REFUSALS = new Map([
  [ESCAPES, "resolves outside the workspace through a symlink"],
  [NOT_A_DIRECTORY, "is not a directory"],
]);
/** One `find -printf` record: type, size, permission bits (octal), mtime (epoch seconds), base name. */
const RECORD = "%y\\t%s\\t%m\\t%T@\\t%f\\0";

/** Entries of one directory (not recursive), with workspace-relative paths; a symlink is reported as itself. */
export function listDir(context: DaytonaContext, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo[]> {
  return onPath(context, handle, op, { operation: "listDir", path, allowRoot: true, followFinal: true }, (target) => [
    `[ -d ${target} ] || { [ -e ${target} ] && exit ${NOT_A_DIRECTORY}; exit ${MISSING}; }`,
    `find ${target}/ -mindepth 1 -maxdepth 1 -printf '${RECORD}'`,
  ]).then(({ relative, output }) =>
    fileInfos(output, (name) => (relative === "" ? name : `${relative}/${name}`)).sort((left, right) =>
      left.name < right.name ? -1 : left.name > right.name ? 1 : 0,
    ),
  );
}

/** One entry's metadata; a symlink is reported as itself. A missing path rejects `NOT_FOUND`. */
export function stat(context: DaytonaContext, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo> {
  return onPath(context, handle, op, { operation: "stat", path, allowRoot: true, followFinal: false }, (target) => [
    `{ [ -e ${target} ] || [ -L ${target} ]; } || exit ${MISSING}`,
    `find ${target} -maxdepth 0 -printf '${RECORD}'`,
  ]).then(({ relative, output }) => {
    const [info] = fileInfos(output, () => relative);
    if (!info) throw unexpected("stat", `find printed nothing for ${JSON.stringify(relative)}`);
    return { ...info, name: posix.basename(relative === "" ? context.options.workspaceRoot : relative) };
  });
}

/** Creates a directory and its parents; succeeds when it already exists. */
export async function mkdir(context: DaytonaContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  await onPath(context, handle, op, { operation: "mkdir", path, allowRoot: true, followFinal: true }, (target) => [
    `mkdir -p -- ${target}`,
  ]);
}

/** Removes a file, symlink or directory tree; succeeds when it is already absent. The workspace root itself is refused. */
export async function remove(context: DaytonaContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  await onPath(context, handle, op, { operation: "remove", path, allowRoot: false, followFinal: false }, (target) => [
    `rm -rf -- ${target}`,
  ]);
}

/**
 * Runs one file operation as a command in the workspace: the path validated
 * (`INVALID_REQUEST` before any request), then, in the sandbox, refused when
 * it resolves outside the workspace, then `action`'s lines with the quoted path.
 */
async function onPath(
  context: DaytonaContext,
  handle: unknown,
  op: OpOptions | undefined,
  { operation, path, allowRoot, followFinal }: PathRule,
  action: (target: string) => string[],
): Promise<{ readonly relative: string; readonly output: string }> {
  const root = context.options.workspaceRoot;
  const relative = normalizeWorkspacePath(path, { root, allowRoot, provider: PROVIDER });
  const target = quoteShellArg(relative === "" ? "." : relative);
  const resolved = followFinal ? relative : posix.dirname(relative);
  const script = [
    `r=$(realpath -m -- .) && t=$(realpath -m -- ${quoteShellArg(resolved === "" ? "." : resolved)}) || exit 70`,
    `case "$t" in "$r"|"$r"/*) ;; *) exit ${ESCAPES};; esac`,
    ...action(target),
  ].join("\n");
  const where = { operation, path: `${root}/${relative}`.replace(/\/$/, "") };
  return context.onInstance(handle, op, where, context.options.timeouts.fileMs, async (sandbox, call, sandboxId) => {
    // The workspace is made first when nothing has made it yet (a launch does not): a fresh one lists empty.
    const result = await runInWorkspace(sandbox, script, root, call, { operation, sandboxId });
    if (result.exitCode === 0) return { relative, output: result.output };
    const shown = JSON.stringify(relative);
    const refusal = REFUSALS.get(result.exitCode);
    if (refusal) throw invalidRequest(`path ${shown} ${refusal}`, { path: relative }, PROVIDER);
    if (result.exitCode === MISSING) {
      throw new SandportError({
        code: "NOT_FOUND",
        provider: PROVIDER,
        retryable: false,
        message: `daytona sandbox ${sandboxId} has no ${shown} in its workspace (${operation})`,
        details: { sandboxId, path: relative },
      });
    }
    throw unexpected(operation, `${result.output.trim() || "no output"} (exit ${result.exitCode})`);
  });
}

/** What `find -printf` says a type is. */
const KINDS: Readonly<Record<string, FileKind>> = { f: "file", d: "directory", l: "symlink" };

/** The entries `find` printed as {@link RECORD}s, each with the path `pathOf` gives its name. */
function fileInfos(output: string, pathOf: (name: string) => string): FileInfo[] {
  return output
    .split("\0")
    .filter((record) => record !== "")
    .map((record) => {
      const [type = "", size = "0", mode = "0", modified = "0", ...rest] = record.split("\t");
      const name = rest.join("\t");
      const modifiedAt = new Date(Number(modified) * 1000);
      return {
        name,
        path: pathOf(name),
        kind: KINDS[type] ?? "other",
        size: Number(size) || 0,
        mode: (Number.parseInt(mode, 8) || 0) & 0o7777,
        ...(Number.isNaN(modifiedAt.getTime()) ? {} : { modifiedAt: modifiedAt.toISOString() }),
      };
    });
}

function unexpected(operation: string, why: string): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider: PROVIDER,
    retryable: false,
    message: `daytona ${operation} failed in the sandbox: ${why}`,
  });
}
