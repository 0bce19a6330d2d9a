// The arithmetic and the text of the round-trip report, kept apart from the workload so it can be
// tested without an emulator: the API minimum per phase, the excess per phase, the "minimum + N"
// summary and the markdown rows of docs/benchmarks.md.

/** The phases of the standard workload, in order, with the label the report prints. */
export const PHASES = [
  { key: "launch", label: "launch" },
  { key: "write", label: "write 20 files" },
  { key: "exec", label: "3 execs" },
  { key: "read", label: "read 2 files" },
  { key: "destroy", label: "destroy" },
];

/**
 * The fewest requests the provider's API allows in each phase, each with its one-line reason:
 * `{ launch: [1, "POST /v2/sandboxes creates and starts it"], write: [...], ... }`.
 *
 * @typedef {Record<"launch" | "write" | "exec" | "read" | "destroy", [number, string]>} PhaseMinimum
 */

/** Refuses a per-phase minimum that misses a phase, is not a count, or gives no reason. */
export function checkMinimum(minimum) {
  for (const { key } of PHASES) {
    const entry = minimum?.[key];
    if (!Array.isArray(entry) || !Number.isInteger(entry[0]) || entry[0] < 0)
      throw new Error(`the API minimum needs a request count for the ${key} phase: ${JSON.stringify(entry)}`);
    if (typeof entry[1] !== "string" || entry[1].trim().length < 10)
      throw new Error(`the API minimum of the ${key} phase must say why (one line from the vendor's API)`);
  }
  const extra = Object.keys(minimum).filter((key) => !PHASES.some((phase) => phase.key === key));
  if (extra.length > 0) throw new Error(`no such phase in the workload: ${extra.join(", ")}`);
}

/** The sum of a per-phase minimum. */
export function minimumTotal(minimum) {
  return PHASES.reduce((sum, { key }) => sum + minimum[key][0], 0);
}

/**
 * Each phase's requests next to its minimum: `[{ key, label, requests, minimum, extra }]`, where
 * `counts` maps a phase key to the requests it took.
 */
export function phaseRows(counts, minimum) {
  return PHASES.map(({ key, label }) => ({
    key,
    label,
    requests: counts[key],
    minimum: minimum[key][0],
    extra: counts[key] - minimum[key][0],
  }));
}

/**
 * A phase's routes with repeats folded: "POST /claims, GET /files ×2, DELETE /claims" (runs of one
 * route), or, when that is still longer than `most` entries, each route once with its count, in the
 * order it first came.
 */
export function foldRoutes(routes, most = 6) {
  const runs = [];
  for (const route of routes) {
    const last = runs.at(-1);
    if (last?.route === route) last.count++;
    else runs.push({ route, count: 1 });
  }
  if (runs.length > most) {
    const tally = new Map();
    for (const route of routes) tally.set(route, (tally.get(route) ?? 0) + 1);
    runs.splice(0, runs.length, ...[...tally].map(([route, count]) => ({ route, count })));
  }
  return runs.map(({ route, count }) => (count > 1 ? `${route} ×${count}` : route)).join(", ");
}

/** A signed difference: "+4", "−3", "+0". */
export function signed(difference) {
  return difference < 0 ? `−${-difference}` : `+${difference}`;
}

/** "12 requests = API minimum 8 + 4". */
export function summaryLine(total, minimum) {
  const difference = total - minimum;
  return `${total} requests = API minimum ${minimum} ${difference < 0 ? "−" : "+"} ${Math.abs(difference)}`;
}

/** The phases above (or below) their minimum: "launch +1, read +2, destroy +1", or "—". */
export function extraPhases(rows) {
  const off = rows.filter((row) => row.extra !== 0);
  return off.length > 0 ? off.map((row) => `${row.key} ${signed(row.extra)}`).join(", ") : "—";
}

/**
 * One row of the requests table in docs/benchmarks.md:
 * | adapter | requests | minimum | minimum + N | per phase, where extra | peer |
 */
export function requestsRow({ adapter, total, minimum, rows, peers = [] }) {
  const peer = peers.length > 0 ? peers.map(peerCell).join("; ") : "—";
  return `| ${adapter} | ${total} | ${minimum} | ${signed(total - minimum)} | ${extraPhases(rows)} | ${peer} |`;
}

/** The header of the requests table, to go above {@link requestsRow}s. */
export const REQUESTS_HEADER = [
  "| adapter | requests | API minimum | minimum + N | per phase, where not the minimum | peer library |",
  "|---|---:|---:|---:|---|---|",
];

/** A peer's cell: "ComputeSDK 27 (measured)" or "ComputeSDK 28 (external figure)". */
function peerCell(peer) {
  return `${peer.short ?? peer.name} ${peer.requests} (${peer.measured ? "measured" : "external figure"})`;
}

/** Bytes as MiB with one decimal: "64.3 MiB". */
export function mebibytes(bytes) {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/**
 * One row of the large-file table: the bytes on the wire per direction as a multiple of the file's
 * size, and the wall time of each; or, for a transfer that failed, its error's code (the report
 * before the table gives the whole reason).
 */
export function largeFileRow({ adapter, size, write, read, error }) {
  if (error) return `| ${adapter} | ${mebibytes(size)} | not transferred (${error.split(":")[0]}) | — | — | — |`;
  const ratio = (bytes) => `${(bytes / size).toFixed(2)}×`;
  return `| ${adapter} | ${mebibytes(size)} | ${mebibytes(write.bytes)} (${ratio(write.bytes)}) | ${Math.round(write.ms)} ms | ${mebibytes(read.bytes)} (${ratio(read.bytes)}) | ${Math.round(read.ms)} ms |`;
}

/** The header of the large-file table. */
export const LARGE_FILE_HEADER = [
  "| adapter | file | write: bytes on the wire | write: time | read: bytes on the wire | read: time |",
  "|---|---:|---:|---:|---:|---:|",
];

/** The median of a list of numbers. */
export function median(values) {
  if (values.length === 0) throw new Error("no values to take the median of");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** One row of the timing table: medians of W against the emulator, current and baseline, and their ratio. */
export function timingRow({ adapter, current, baseline, rounds }) {
  if (baseline === undefined) return `| ${adapter} | ${Math.round(median(current))} ms | — | — | ${rounds} |`;
  const [ours, theirs] = [median(current), median(baseline)];
  return `| ${adapter} | ${Math.round(ours)} ms | ${Math.round(theirs)} ms | ${(ours / theirs).toFixed(2)} | ${rounds} |`;
}

/** The header of the timing table. */
export const TIMING_HEADER = [
  "| adapter | W, current (median) | W, baseline (median) | current / baseline | rounds |",
  "|---|---:|---:|---:|---:|",
];
