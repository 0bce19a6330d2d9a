import { readFile, stat } from "node:fs/promises";
import { basename, resolve } from "node:path";
import type { FileInput } from "@sandport/core";
import { CliError } from "../cli-error.js";

/** A workspace file to copy out after the command, and where it goes on this machine. */
export interface CollectSpec {
  /** Path in the sandbox workspace. */
  readonly path: string;
  /** Absolute local destination. */
  readonly local: string;
}

/** Splits `A[:B]` at its first colon; `B` defaults to `A`'s base name. */
function pair(text: string, flag: string): [string, string] {
  const at = text.indexOf(":");
  const first = at < 0 ? text : text.slice(0, at);
  const second = at < 0 ? basename(first) : text.slice(at + 1);
  if (first === "" || second === "") throw new CliError("USAGE", `${flag} ${JSON.stringify(text)}: empty path`);
  return [first, second];
}

/**
 * Reads each `--file LOCAL[:REMOTE]` (relative to `cwd`) into a file to write
 * into the workspace, at REMOTE (default: LOCAL's base name), keeping its
 * permission bits so that scripts stay executable. Regular files only.
 */
export async function readFileSpecs(cwd: string, specs: readonly string[]): Promise<FileInput[]> {
  return Promise.all(
    specs.map(async (spec) => {
      const [local, remote] = pair(spec, "--file");
      const path = resolve(cwd, local);
      try {
        const info = await stat(path);
        if (!info.isFile()) throw new Error("not a regular file");
        return { path: remote, content: new Uint8Array(await readFile(path)), mode: info.mode & 0o777 };
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        throw new CliError("UNREADABLE_FILE", `--file ${local}: ${why}`, { cause: error });
      }
    }),
  );
}

/** Parses each `--collect PATH[:LOCAL]`: LOCAL defaults to PATH's base name, relative to `cwd`. */
export function parseCollectSpecs(cwd: string, specs: readonly string[]): CollectSpec[] {
  return specs.map((spec) => {
    const [path, local] = pair(spec, "--collect");
    return { path, local: resolve(cwd, local) };
  });
}
