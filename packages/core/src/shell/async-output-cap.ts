import { EXEC_MARKER_ENV } from "../port/exec-markers.js";
import { markerSweepScript } from "./marker-sweep.js";
import { quoteShellArg } from "./quote.js";

/**
 * Exit status of an {@link asyncOutputCapScript} whose command its output cap
 * stopped (the cap mark tells it apart from a command that exits 141 itself).
 */
export const OUTPUT_CAP_EXIT = 141;

/** What {@link asyncOutputCapScript} runs and where it leaves its records. */
export interface AsyncOutputCapInput {
  /** The command (a complete command list, stdin arranged); it runs in a subshell. */
  readonly command: string;
  /** The cap on the output kept, stdout and stderr together. */
  readonly maxOutputBytes: number;
  /**
   * Stderr goes into stdout (one stream, in the order it was written), for a
   * provider that keeps them merged: the cap is then exact on both together.
   */
  readonly merged: boolean;
  /** Path (absolute, or relative to the working directory) of the mark left when the cap stopped the command. */
  readonly capMark: string;
  /**
   * The command's exec marker: the script itself drops the marker and gives it
   * only to the command, so the cap's stop also sweeps the command's
   * descendants, and a sweep of the marker (a provider's own watchdog) leaves
   * the script alive to finish its records. Only for a script whose own process
   * was not started with the marker in its environment.
   */
  readonly marker?: string;
  /**
   * Path of a run record, for a provider that keeps no times of its own:
   * `<output cap>\n<start ms>\n` when the command starts, `<end ms>\n`
   * appended once it ended (read by {@link parseRunRecord}).
   */
  readonly runRecord?: string;
}

/**
 * The script an async command runs as, so that its output cap holds with
 * nobody reading: for a provider that keeps an async command's output itself
 * (in its logs, or in files) and runs it with no live caller.
 *
 * The command writes into FIFOs; each stream goes on through `head -c <cap + 1>`
 * (unbuffered, as it arrives) to the script's own stdout/stderr, counted as it passes. Once a stream passes
 * the cap, its reader leaves the cap mark and stops the command at once
 * (`SIGTERM` to its subshell, a sweep of its marker when given; a writer left
 * over dies of `SIGPIPE` at its next write). Two separate streams that pass the
 * cap only together are marked once the command ended. So at most `cap + 1`
 * bytes of a stream are ever kept, and the reader of the output (with the cap)
 * sees `truncated` exactly when the mark is there.
 *
 * The script exits with the command's status, or {@link OUTPUT_CAP_EXIT}
 * when the mark is there; `125` when it could not set up its FIFOs.
 */
export function asyncOutputCapScript(input: AsyncOutputCapInput): string {
  const cap = input.maxOutputBytes;
  if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`maxOutputBytes must be a positive integer, got ${cap}`);
  const mark = quoteShellArg(input.capMark);
  const record = input.runRecord === undefined ? undefined : quoteShellArg(input.runRecord);
  const stop = ['kill -TERM "$c" 2>/dev/null'];
  if (input.marker !== undefined) stop.push(markerSweepScript(EXEC_MARKER_ENV, input.marker));
  // The script drops the marker before it starts anything, so no process of its own carries it.
  const lines = input.marker === undefined ? [] : [`unset ${EXEC_MARKER_ENV}`];
  lines.push(
    `now_ms() { t=$(date +%s%3N 2>/dev/null); case "$t" in ''|*[!0-9]*) echo "$(( $(date +%s) * 1000 ))";; *) echo "$t";; esac; }`,
  );
  if (record !== undefined) lines.push(`printf '%s\\n%s\\n' ${cap} "$(now_ms)" >${record}`);
  lines.push(
    `t=$(mktemp -d "\${TMPDIR:-/tmp}/sandport-cap.XXXXXXXX") && mkfifo "$t/1" "$t/2" "$t/c1" "$t/c2" || exit 125`,
    // fd 5/6: the script's stdout/stderr, where the kept output goes.
    "exec 5>&1 6>&2",
  );
  const exportMarker = input.marker === undefined ? "" : `export ${EXEC_MARKER_ENV}=${quoteShellArg(input.marker)}\n`;
  lines.push(
    `( ${exportMarker}${input.command}\n) >"$t/1" ${input.merged ? "2>&1" : '2>"$t/2"'} 5>&- 6>&- </dev/null &`,
    "c=$!",
    // GNU head buffers what it writes (so the logs would lag by up to 4 KiB): unbuffered through stdbuf where it exists.
    'if command -v stdbuf >/dev/null 2>&1; then cut_at() { stdbuf -o0 head -c "$1"; }; else cut_at() { head -c "$1"; }; fi',
    // One reader per stream: keeps cap + 1 bytes, counts them (through a second FIFO), stops the command past the cap.
    `keep() { wc -c <"$t/c$1" >"$t/n$1" & cut_at ${cap + 1} <"$t/$1" | tee "$t/c$1" >&"$2"; wait; read -r n <"$t/n$1"; if [ "$n" -gt ${cap} ]; then : >${mark}; ${stop.join("; ")}; fi; }`,
    "keep 1 5 & r1=$!",
  );
  if (!input.merged) lines.push("keep 2 6 & r2=$!");
  lines.push(
    'wait "$c"; s=$?',
    `wait $r1 ${input.merged ? "" : "$r2"}`.trimEnd(),
    `n=0; for f in "$t/n1" "$t/n2"; do [ -s "$f" ] && { read -r k <"$f"; n=$((n + k)); }; done`,
    `[ "$n" -gt ${cap} ] && : >${mark}`,
    'rm -rf -- "$t"',
  );
  if (record !== undefined) lines.push(`now_ms >>${record}`);
  lines.push(`[ -e ${mark} ] && exit ${OUTPUT_CAP_EXIT}`, 'exit "$s"');
  return lines.join("\n");
}

/** The run record of an {@link asyncOutputCapScript}: its cap, when its command started and, once it ended, when. */
export interface RunRecord {
  /** The output cap in bytes. */
  readonly maxOutputBytes: number;
  /** Epoch ms. */
  readonly startedAt: number;
  /** Epoch ms; `undefined` while it runs. */
  readonly endedAt: number | undefined;
}

/** Reads a run record's text; `undefined` when it has no cap and start. */
export function parseRunRecord(text: string | undefined): RunRecord | undefined {
  if (text === undefined) return undefined;
  const [cap = "", start = "", end = ""] = text.split("\n");
  const maxOutputBytes = Number(cap);
  const startedAt = Number(start);
  if (!Number.isInteger(maxOutputBytes) || maxOutputBytes < 1 || start === "" || !Number.isFinite(startedAt)) {
    return undefined;
  }
  const endedAt = Number(end);
  return { maxOutputBytes, startedAt, endedAt: end !== "" && Number.isFinite(endedAt) ? endedAt : undefined };
}
