import { posix } from "node:path";
import { quoteShellArg } from "./quote.js";

/** Largest stdin embedded in the command itself (base64); more is staged in a file first. */
export const EMBEDDED_STDIN_BYTES = 64 * 1024;

/** A command with its stdin arranged, for a provider whose exec takes a string and no stdin. */
export interface StdinPlan {
  /** The command, reading the stdin from where the plan put it. */
  readonly command: string;
  /** Stdin too large to embed: upload `content` to `path` before the start; the command opens and deletes it. */
  readonly upload?: { readonly path: string; readonly content: Uint8Array };
}

/** Where {@link planStdin} may stage stdin. */
export interface StdinStaging {
  /** Absolute working directory of the command (staged paths are given relative to it). */
  readonly cwd: string;
  /** Absolute directory for staged stdin files, outside the workspace. */
  readonly scratchDirectory: string;
  /** A unique file name for this command's staged stdin. */
  readonly name: string;
  /** Embedding limit in bytes. Default {@link EMBEDDED_STDIN_BYTES}. */
  readonly embedLimitBytes?: number;
}

/**
 * Gives `command` its stdin: up to the embedding limit as base64 piped through
 * `base64 -d`; beyond it, from a staged file the command opens and removes
 * before it runs (the path relative to its working directory, so it holds
 * wherever the sandbox's tree is mounted). No stdin: the command unchanged.
 */
export function planStdin(command: string, stdin: string | Uint8Array | undefined, staging: StdinStaging): StdinPlan {
  if (stdin === undefined) return { command };
  const bytes = typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin;
  if (bytes.byteLength <= (staging.embedLimitBytes ?? EMBEDDED_STDIN_BYTES)) {
    const encoded = quoteShellArg(Buffer.from(bytes).toString("base64"));
    return { command: `printf '%s' ${encoded} | base64 -d | ${command}` };
  }
  const path = posix.join(staging.scratchDirectory, staging.name);
  const relative = quoteShellArg(posix.relative(staging.cwd, path));
  return { command: `exec 0<${relative} && rm -f -- ${relative} && ${command}`, upload: { path, content: bytes } };
}
