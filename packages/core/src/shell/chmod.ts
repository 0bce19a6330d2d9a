import { SandportError } from "../errors/sandport-error.js";
import { quoteArgv } from "./quote.js";

/**
 * One command that gives each path its mode (paths relative to where it runs):
 * for providers whose file upload cannot set modes. Modes are grouped, one
 * `chmod` per mode.
 */
export function chmodScript(modes: ReadonlyMap<number, readonly string[]>): string {
  return [...modes]
    .map(([mode, paths]) => `chmod ${mode.toString(8).padStart(4, "0")} -- ${quoteArgv(paths)}`)
    .join(" && ");
}

/**
 * The mode changes a batch of written files needs, for {@link chmodScript}:
 * each file that asked for a mode other than `writtenMode` (the mode the
 * provider's upload gives), grouped by mode. `files` are the caller's,
 * `validated` the same files validated (workspace-relative paths, in order).
 */
export function modeChanges(
  files: readonly { readonly mode?: number }[],
  validated: readonly { readonly path: string; readonly mode: number }[],
  writtenMode = 0o644,
): Map<number, string[]> {
  const modes = new Map<number, string[]>();
  validated.forEach((file, index) => {
    if (files[index]?.mode === undefined || file.mode === writtenMode) return;
    modes.set(file.mode, [...(modes.get(file.mode) ?? []), file.path]);
  });
  return modes;
}

/** `UNEXPECTED`: the files were written, but the {@link chmodScript} that was to give them their modes failed. */
export function chmodFailure(
  provider: string,
  sandboxId: string,
  exitCode: number | null,
  output: string,
): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider,
    retryable: false,
    message: `${provider} wrote the files but could not set their modes: ${output.trim() || `exit ${exitCode}`}`,
    details: { sandboxId, exitCode },
  });
}
