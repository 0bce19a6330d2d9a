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
import type { DaytonaContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { runScript } from "./run-script.js";

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
/** One `find -printf` record: type, size, permission bits (octal), mtime (epoch seconds), base name. */
const RECORD = "%y\\t%s\\t%m\\t%T@\\t%f\\0";

/** Entries of one directory (not recursive), with workspace-relative paths; a symlink is reported as itself. */
export function listDir(context: DaytonaContext, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo[]> {
  return onPath(context, handle, path, op, "listDir", { root: true, followFinal: true }, (target) => [
    `[ -d ${target} ] || { [ -e ${target} ] && exit ${NOT_A_DIRECTORY}; exit ${MISSING}; }`,
    `find ${target}/ -mindepth 1 -maxdepth 1 -printf '${RECORD}'`,
  ]).then(({ relative, output }) =>
    parseRecords(output)
      .map((record) => toFileInfo(record, relative === "" ? record.name : `${relative}/${record.name}`))
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0)),
  );
}

/** One entry's metadata; a symlink is reported as itself. A missing path rejects `NOT_FOUND`. */
export function stat(context: DaytonaContext, handle: unknown, path: string, op?: OpOptions): Promise<FileInfo> {
  return onPath(context, handle, path, op, "stat", { root: true, followFinal: false }, (target) => [
    `{ [ -e ${target} ] || [ -L ${target} ]; } || exit ${MISSING}`,
    `find ${target} -maxdepth 0 -printf '${RECORD}'`,
  ]).then(({ relative, output }) => {
    const [record] = parseRecords(output);
    if (!record) throw unexpected("stat", `find printed nothing for ${JSON.stringify(relative)}`);
    const name = relative === "" ? posix.basename(context.options.workspaceRoot) : posix.basename(relative);
    return toFileInfo({ ...record, name }, relative);
  });
}

/** Creates a directory and its parents; succeeds when it already exists. */
export async function mkdir(context: DaytonaContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  await onPath(context, handle, path, op, "mkdir", { root: true, followFinal: true }, (target) => [
    `mkdir -p -- ${target}`,
  ]);
}

/** Removes a file, symlink or directory tree; succeeds when it is already absent. The workspace root itself is refused. */
export async function remove(context: DaytonaContext, handle: unknown, path: string, op?: OpOptions): Promise<void> {
  await onPath(context, handle, path, op, "remove", { root: false, followFinal: false }, (target) => [
    `rm -rf -- ${target}`,
  ]);
}

/** How a file operation treats its path. */
interface PathRule {
  /** Whether the workspace root itself is allowed. */
  readonly root: boolean;
  /** Whether a final symlink is followed (and must stay inside), or acted on itself (only its parent is resolved). */
  readonly followFinal: boolean;
}

/**
 * Runs one file operation as a command in the workspace: the path validated
 * (`INVALID_REQUEST` before any request), then, in the sandbox, refused when
 * it resolves outside the workspace, then `action`'s lines with the quoted path.
 */
async function onPath(
  context: DaytonaContext,
  handle: unknown,
  path: string,
  op: OpOptions | undefined,
  operation: string,
  rule: PathRule,
  action: (target: string) => string[],
): Promise<{ readonly relative: string; readonly output: string }> {
  const root = context.options.workspaceRoot;
  const relative = normalizeWorkspacePath(path, { root, allowRoot: rule.root, provider: PROVIDER });
  const target = quoteShellArg(relative === "" ? "." : relative);
  const resolved = rule.followFinal ? relative : posix.dirname(relative);
  const script = [
    `r=$(realpath -m -- .) && t=$(realpath -m -- ${quoteShellArg(resolved === "" ? "." : resolved)}) || exit 70`,
    `case "$t" in "$r"|"$r"/*) ;; *) exit ${ESCAPES};; esac`,
    ...action(target),
  ].join("\n");
  const where = { operation, path: `${root}/${relative}`.replace(/\/$/, "") };
  return context.onInstance(handle, op, where, context.options.timeouts.fileMs, async (sandbox, call, sandboxId) => {
    const result = await runScript(sandbox, script, root, call, { operation, sandboxId });
    if (result.exitCode === 0) return { relative, output: result.output };
    const shown = JSON.stringify(relative);
    if (result.exitCode === ESCAPES) {
      throw invalidRequest(
        `path ${shown} resolves outside the workspace through a symlink`,
        { path: relative },
        PROVIDER,
      );
    }
    if (result.exitCode === NOT_A_DIRECTORY)
      throw invalidRequest(`path ${shown} is not a directory`, { path: relative }, PROVIDER);
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

/** One entry as `find` printed it. */
interface FindRecord {
  readonly type: string;
  readonly size: number;
  readonly mode: number;
  readonly modifiedMs: number;
  readonly name: string;
}

function parseRecords(output: string): FindRecord[] {
  return output
    .split("\0")
    .filter((record) => record !== "")
    .map((record) => {
      const [type = "", size = "0", mode = "0", modified = "0", ...name] = record.split("\t");
      return {
        type,
        size: Number(size) || 0,
        mode: Number.parseInt(mode, 8) || 0,
        modifiedMs: Number(modified) * 1000,
        name: name.join("\t"),
      };
    });
}

function toFileInfo(record: FindRecord, path: string): FileInfo {
  const modified = new Date(record.modifiedMs);
  return {
    name: record.name,
    path,
    kind: kindOf(record.type),
    size: record.size,
    mode: record.mode & 0o7777,
    ...(Number.isNaN(modified.getTime()) ? {} : { modifiedAt: modified.toISOString() }),
  };
}

function kindOf(type: string): FileKind {
  if (type === "f") return "file";
  if (type === "d") return "directory";
  if (type === "l") return "symlink";
  return "other";
}

function unexpected(operation: string, why: string): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider: PROVIDER,
    retryable: false,
    message: `daytona ${operation} failed in the sandbox: ${why}`,
  });
}
