import { quoteShellArg } from "@sandport/core";
import type { E2BSandbox } from "./internal/sdk-types.js";
import { EXEC_MARKER_ENV } from "./markers.js";

/** Deadline of the best-effort kill after a timeout, abort or output overflow. */
export const KILL_TIMEOUT_MS = 10_000;

/**
 * Best-effort kill of a command and its descendants: SIGKILL to its pid, then
 * (when it carries a marker) SIGKILL to every process whose environment holds
 * the marker. Resolves `false` when the command was already gone or the kill failed;
 * a command that survives a failed kill still ends at its own timeout, which is always set.
 */
export async function killProcessTree(sandbox: E2BSandbox, pid: number, marker: string | undefined): Promise<boolean> {
  let killed = false;
  try {
    killed = await sandbox.commands.kill(pid, { requestTimeoutMs: KILL_TIMEOUT_MS });
  } catch {
    killed = false;
  }
  if (marker === undefined) return killed;
  try {
    const sweep = await sandbox.commands.run(markerSweep(marker), {
      background: true,
      timeoutMs: KILL_TIMEOUT_MS,
      stdin: false,
      requestTimeoutMs: KILL_TIMEOUT_MS,
    });
    await sweep.wait().catch(() => undefined);
  } catch {
    // Best effort: see above.
  }
  return killed;
}

/** A script that SIGKILLs every process whose environment holds `SANDPORT_EXEC_ID=<marker>`. */
export function markerSweep(marker: string): string {
  const entry = quoteShellArg(`${EXEC_MARKER_ENV}=${marker}`);
  // One grep over every environ file; the sweep itself does not carry the marker.
  return `for f in $(grep -lzx -- ${entry} /proc/[0-9]*/environ 2>/dev/null); do p=\${f#/proc/}; kill -KILL "\${p%/environ}" 2>/dev/null; done; true`;
}
