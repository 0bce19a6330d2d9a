import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type PriceTable, type SandboxUsage, validatePriceTable } from "@sandport/core";
import { CliError } from "../cli-error.js";
import { formatDuration } from "../duration.js";

/**
 * Reads `--prices FILE`: a JSON price table (`{ "currency": "USD", "providers":
 * { "e2b": { "sandboxSecond": 0.0001 } } }`), the caller's own numbers. An
 * unreadable or malformed one is a usage error, before anything is launched.
 */
export async function readPriceTable(cwd: string, file: string | undefined): Promise<PriceTable | undefined> {
  if (file === undefined) return undefined;
  try {
    return validatePriceTable(JSON.parse(await readFile(resolve(cwd, file), "utf8")));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new CliError("UNREADABLE_FILE", `--prices ${file}: ${why}`, { cause: error });
  }
}

/** A byte count for people: `512 B`, `1.5 KiB`, `3.2 MiB`, `1.0 GiB`. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * One line of what a sandbox was used for: `usage: 2.1s of sandbox, 1 command
 * (1.3s), 12 B in, 4 B out`, then the estimate with its currency where a price
 * table priced it (`, estimate 0.000210 USD`), or why not.
 */
export function usageSummary(usage: SandboxUsage): string {
  const commands = `${usage.execs.count} command${usage.execs.count === 1 ? "" : "s"}`;
  const parts = [
    `${formatDuration(usage.sandboxSeconds * 1000)} of sandbox`,
    `${commands} (${formatDuration(usage.execs.durationMs)})`,
    `${formatBytes(usage.bytesIn.files + usage.bytesIn.stdin)} in`,
    `${formatBytes(usage.bytesOut.files + usage.bytesOut.output)} out`,
  ];
  const estimate = usage.estimate;
  if (estimate?.total !== undefined) {
    const unpriced =
      estimate.unpriced.length > 0 ? ` (not priced: ${estimate.unpriced.map((item) => item.price).join(", ")})` : "";
    parts.push(`estimate ${estimate.total.toPrecision(3)} ${estimate.currency}${unpriced}`);
  } else if (estimate) {
    parts.push(`no estimate: ${estimate.unpriced[0]?.reason ?? "nothing priced"}`);
  }
  return `usage: ${parts.join(", ")}`;
}
