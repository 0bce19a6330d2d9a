import { quoteShellArg } from "./quote.js";

/**
 * A script that SIGKILLs every process whose environment holds exactly
 * `<variable>=<marker>`: how a provider that kills only a command's top
 * process kills what it left (its descendants inherit the variable). One
 * `grep` over every `/proc/<pid>/environ`; the sweep itself does not carry the marker.
 */
export function markerSweepScript(variable: string, marker: string): string {
  const entry = quoteShellArg(`${variable}=${marker}`);
  return `for f in $(grep -lzx -- ${entry} /proc/[0-9]*/environ 2>/dev/null); do p=\${f#/proc/}; kill -KILL "\${p%/environ}" 2>/dev/null; done; true`;
}
