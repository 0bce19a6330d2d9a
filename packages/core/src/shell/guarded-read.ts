import { invalidRequest } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import { quoteShellArg } from "./quote.js";

/**
 * The largest file a guarded read command prints, by default: above it, the
 * command reports the size and the vendor's download follows. Against the
 * emulators a read through command output cost no more than the guard and a
 * download together up to 512 KiB on every provider, and fell behind from
 * 1 MiB on some (base64 is a third larger, and command output is relayed in
 * chunks); 256 KiB also fits the smallest output cut met (Agent37's 512 KB).
 * See `scripts/read-crossover.mjs` and docs/benchmarks.md, "Reads".
 */
export const INLINE_READ_BYTES = 256 * 1024;

/** The first word of every line the read script prints about itself (never a base64 line: it has a space). */
const TAG = "sandport-read";

/**
 * For providers whose file API follows symlinks: one command, run in the
 * workspace, that does a guarded read's checks and small reads together. It
 * resolves `relative` (`realpath -m`, as the symlink guard does) and prints
 * one status line: `outside` (it resolves out of the workspace), `missing`,
 * `other` (not a readable regular file), `large <size>` (more than
 * `inlineBytes`), or `inline <size>` followed by the file in base64 and an
 * `end` line once `base64` has succeeded. {@link readCommandOutcome} reads it.
 */
export function guardedReadScript(relative: string, inlineBytes: number): string {
  const path = quoteShellArg(relative || ".");
  return [
    `root=$(realpath -m -- .) && target=$(realpath -m -- ${path}) || exit 1`,
    `case "$target" in "$root"|"\${root%/}"/*) ;; *) echo '${TAG} outside'; exit 0;; esac`,
    `[ -e "$target" ] || { echo '${TAG} missing'; exit 0; }`,
    `{ [ -f "$target" ] && [ -r "$target" ]; } || { echo '${TAG} other'; exit 0; }`,
    `size=$(stat -c %s -- "$target" 2>/dev/null || wc -c < "$target") || exit 1`,
    `size=$((size + 0))`,
    `[ "$size" -le ${inlineBytes} ] || { echo "${TAG} large $size"; exit 0; }`,
    `echo "${TAG} inline $size"`,
    `base64 < "$target" && echo '${TAG} end'`,
  ].join("\n");
}

/**
 * The output cap the read script needs for a file of `inlineBytes`: its
 * base64 (4 characters per 3 bytes, in lines of 76) and its two status lines.
 */
export function guardedReadOutputBytes(inlineBytes: number): number {
  const encoded = Math.ceil(inlineBytes / 3) * 4;
  return encoded + Math.ceil(encoded / 76) + 256;
}

/** What the read script found. */
export type ReadCommandOutcome =
  /** The file's bytes, read by the script. */
  | { readonly kind: "read"; readonly bytes: Uint8Array }
  /** The path stays inside; the file is larger than the script prints (its size then). */
  | { readonly kind: "large"; readonly size: number }
  /** The path stays inside, but the script did not read it (not a regular file, or its output was cut): the vendor's read decides. */
  | { readonly kind: "download" };

/**
 * Reads the read script's result: refuses (`INVALID_REQUEST`) a path that
 * resolves outside the workspace, fails `NOT_FOUND` for a missing file
 * (`details` carrying `notFound`), and fails (`UNEXPECTED`) when the script
 * did not run cleanly. `stdout` may hold the command's stderr too (providers
 * that merge them): only the lines after the status line are the file's.
 */
export function readCommandOutcome(
  relative: string,
  result: { readonly exitCode: number | null; readonly stdout: string; readonly stderr: string },
  provider: string,
  notFound: Readonly<Record<string, unknown>>,
): ReadCommandOutcome {
  const output = result.stdout;
  const start = output.startsWith(`${TAG} `) ? 0 : output.indexOf(`\n${TAG} `) + 1;
  const lineEnd = start === 0 && !output.startsWith(`${TAG} `) ? -1 : output.indexOf("\n", start);
  const status = lineEnd < 0 ? "" : output.slice(start, lineEnd);
  const [, kind, size] = status.split(" ");
  if (kind === "outside") {
    throw invalidRequest(
      `path ${JSON.stringify(relative)} resolves outside the workspace through a symlink`,
      { path: relative },
      provider,
    );
  }
  if (kind === "missing") {
    throw new SandportError({
      code: "NOT_FOUND",
      provider,
      retryable: false,
      message: `${provider} has no file ${JSON.stringify(notFound.path ?? relative)} to read`,
      details: notFound,
    });
  }
  if (kind === "other") return { kind: "download" };
  if (kind === "large" && size !== undefined && /^\d+$/.test(size)) return { kind: "large", size: Number(size) };
  if (kind === "inline") {
    const end = output.indexOf(`\n${TAG} end`, lineEnd);
    // Cut short (the runner's output cap, a file grown since its size was taken) or base64 failed: download it.
    if (end < 0) return { kind: "download" };
    const encoded = output.slice(lineEnd + 1, end).replace(/\s+/g, "");
    return { kind: "read", bytes: new Uint8Array(Buffer.from(encoded, "base64")) };
  }
  throw new SandportError({
    code: "UNEXPECTED",
    provider,
    retryable: false,
    message: `${provider} could not read ${JSON.stringify(relative)} through its guarded read command: ${result.stderr.trim() || `exit ${result.exitCode}`}`,
    details: { exitCode: result.exitCode, path: relative },
  });
}
