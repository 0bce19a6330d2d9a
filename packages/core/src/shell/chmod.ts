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
