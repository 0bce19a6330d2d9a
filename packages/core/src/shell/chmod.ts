import { SandportError } from "../errors/sandport-error.js";
import type { ValidatedFile } from "../validation/requests.js";
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
 * What {@link chmodScript} must still do after an upload that gives every
 * file `writtenMode`: the files whose mode differs, grouped by mode. Empty
 * when there is nothing to change.
 */
export function modesToSet(files: readonly ValidatedFile[], writtenMode: number): Map<number, string[]> {
  const modes = new Map<number, string[]>();
  for (const file of files) {
    if (file.mode !== writtenMode) modes.set(file.mode, [...(modes.get(file.mode) ?? []), file.path]);
  }
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
