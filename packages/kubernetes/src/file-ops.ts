import { posix } from "node:path";
import { type FileInfo, type FileKind, invalidRequest, quoteShellArg, SandportError } from "@sandport/core";
import { type GuardedTarget, guardedFileOps } from "@sandport/core/adapter";
import type { KubernetesContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { inWorkspace } from "./run-script.js";

/** Exit codes of the scripts below. */
const NOT_A_DIRECTORY = 65;
const MISSING = 66;
/** One `find -printf` record: type, size, permission bits (octal), mtime (epoch seconds), base name. */
const RECORD = "%y\\t%s\\t%m\\t%T@\\t%f\\0";

/**
 * `listDir`, `stat`, `mkdir` and `remove`, each one command in the pod's
 * workspace after the kit's symlink guard, on either data plane. sandboxd's
 * file API lists a directory but has no stat or mkdir, and its listing
 * gives no symlinks; GNU `find` and the shell see a symlink as itself.
 * `listDir`: entries of one directory with workspace-relative paths;
 * `stat`: one entry, a symlink as itself, `NOT_FOUND` when missing;
 * `mkdir`: a directory and its parents; `remove`: a file, symlink or tree,
 * fine when already absent.
 */
export const { listDir, stat, mkdir, remove } = guardedFileOps<KubernetesContext, string>({
  inWorkspace,
  listDir: async (context, target) => {
    const path = shellPath(target.relative);
    const output = await script(context, target, "listDir", [
      `[ -d ${path} ] || { [ -e ${path} ] && exit ${NOT_A_DIRECTORY}; exit ${MISSING}; }`,
      `find ${path}/ -mindepth 1 -maxdepth 1 -printf '${RECORD}'`,
    ]);
    const prefix = target.relative === "" ? "" : `${target.relative}/`;
    return fileInfos(output, (name) => `${prefix}${name}`).sort((left, right) =>
      left.name < right.name ? -1 : left.name > right.name ? 1 : 0,
    );
  },
  stat: async (context, target) => {
    const path = shellPath(target.relative);
    const output = await script(context, target, "stat", [
      `{ [ -e ${path} ] || [ -L ${path} ]; } || exit ${MISSING}`,
      `find ${path} -maxdepth 0 -printf '${RECORD}'`,
    ]);
    const [info] = fileInfos(output, () => target.relative);
    if (!info) throw unexpected(target.sandboxId, "stat", `find printed nothing for ${target.relative}`);
    return { ...info, name: posix.basename(target.absolute) };
  },
  mkdir: async (context, target) => {
    await script(context, target, "mkdir", [`mkdir -p -- ${shellPath(target.relative)}`]);
  },
  remove: async (context, target) => {
    await script(context, target, "remove", [`rm -rf -- ${shellPath(target.relative)}`]);
  },
});

/** Runs one file operation's lines in the workspace; its exit code says what a refusal means. */
async function script(
  context: KubernetesContext,
  target: GuardedTarget<string>,
  operation: string,
  lines: readonly string[],
): Promise<string> {
  const result = await inWorkspace(context, lines.join("\n"), target);
  if (result.exitCode === 0) return result.stdout;
  const shown = JSON.stringify(target.relative);
  if (result.exitCode === NOT_A_DIRECTORY) {
    throw invalidRequest(`path ${shown} is not a directory`, { path: target.relative }, PROVIDER);
  }
  if (result.exitCode === MISSING) {
    throw new SandportError({
      code: "NOT_FOUND",
      provider: PROVIDER,
      retryable: false,
      message: `kubernetes claim ${target.sandboxId} has no ${shown} in its workspace (${operation})`,
      details: { sandboxId: target.sandboxId, path: target.relative },
    });
  }
  throw unexpected(target.sandboxId, operation, `${result.stderr.trim() || "no output"} (exit ${result.exitCode})`);
}

/** A workspace-relative path as a quoted shell word that cannot start with `-`. */
function shellPath(relative: string): string {
  return quoteShellArg(relative === "" ? "." : `./${relative}`);
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

function unexpected(claimName: string, operation: string, why: string): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider: PROVIDER,
    retryable: false,
    message: `kubernetes ${operation} failed in claim ${claimName}: ${why}`,
    details: { sandboxId: claimName, operation },
  });
}
