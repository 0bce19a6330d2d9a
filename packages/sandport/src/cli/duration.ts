import { CliError } from "./cli-error.js";

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;

/**
 * Milliseconds in a duration like `500ms`, `90s`, `10m`, `2h`, `1d` or
 * `1h30m` (`0` alone is zero). Anything else is a `USAGE` error naming `flag`.
 */
export function parseDuration(text: string, flag: string): number {
  const trimmed = text.trim();
  if (trimmed === "0") return 0;
  let total = 0;
  let consumed = 0;
  PART.lastIndex = 0;
  for (let match = PART.exec(trimmed); match !== null; match = PART.exec(trimmed)) {
    total += Number(match[1]) * (UNITS[match[2] as string] ?? 0);
    consumed = PART.lastIndex;
  }
  if (consumed === 0 || consumed !== trimmed.length || !Number.isFinite(total)) {
    throw new CliError(
      "USAGE",
      `${flag} expects a duration such as 90s, 10m, 2h or 1h30m; got ${JSON.stringify(text)}`,
    );
  }
  return Math.round(total);
}

/** A short human form of a duration in milliseconds: `850ms`, `12.3s`, `4m05s`, `2h10m`, `3d4h`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes}m${String(Math.floor((ms % 60_000) / 1_000)).padStart(2, "0")}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h${String(minutes % 60).padStart(2, "0")}m`;
  return `${Math.floor(hours / 24)}d${hours % 24}h`;
}
