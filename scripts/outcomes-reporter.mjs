// A node:test reporter that writes one JSON line per finished test or suite: where it is, its name,
// and whether it passed, failed or was skipped (with the reason), and for a failed test the message
// of its error. scripts/run-tests.mjs adds it to every run: it prints the failed tests last, and
// when SANDPORT_TEST_OUTCOMES names a file it keeps the lines there, so that
// scripts/compare-outcomes.mjs can tell which tests a run without bubblewrap skipped and why.
//
// A test file can fail as a whole while every test in it passed: its process exited non-zero, most
// often because something it started rejected after its test ended (node:test then prints a
// diagnostic and sets the exit code). Such a failure's message says how the process ended and
// carries the diagnostics that name the file and the file's last lines of stderr, so that the end of
// a CI log explains it without the rest of the log.
import { basename, relative } from "node:path";

/** How many lines of a failure's message are kept. */
const ERROR_LINES = 12;
/** How many of a file's last stderr lines a whole-file failure carries. */
const STDERR_LINES = 20;
/** A test file's name in a diagnostic. */
const TEST_FILE = /\.test\.[cm]?[jt]s\b/;
/** The run's summary diagnostics ("tests 12", "duration_ms 3.2"), which say nothing of one file. */
const SUMMARY = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$/;

/** The message of a failed test's error, without its stack (the file and name say where). */
function messageOf(error) {
  const text = String(error?.cause?.stack ?? error?.cause ?? error?.message ?? error ?? "");
  const lines = text.split("\n");
  const frame = lines.findIndex((line, index) => index > 0 && /^\s+at /.test(line));
  return (frame === -1 ? lines : lines.slice(0, frame))
    .filter((line) => line.trim() !== "")
    .slice(0, ERROR_LINES)
    .join("\n");
}

/** What is known of a test file that failed as a whole: how its process ended, what named it, its stderr. */
function wholeFileMessage(error, file, diagnostics, stderr) {
  const code = error?.exitCode;
  // Node's own exit code for "the event loop emptied while a top-level await was pending".
  const why = code === 13 ? ": a top-level await never settled (the event loop emptied first)" : "";
  const ended = `${messageOf(error)} (exit code ${code ?? "none"}, signal ${error?.signal ?? "none"})${why}`;
  const name = basename(file);
  const naming = diagnostics.filter((message) => message.includes(name));
  // "A resource generated asynchronous activity after the test ended" names no test and no file.
  const unnamed = diagnostics.filter((message) => !TEST_FILE.test(message));
  const parts = [
    ended,
    ...naming.map((message) => `diagnostic: ${message}`),
    ...unnamed.map((message) => `diagnostic naming no file (this one's, or another's run beside it): ${message}`),
  ];
  const lines = (stderr.get(file) ?? []).slice(-STDERR_LINES);
  if (lines.length > 0) parts.push("its last stderr lines:", ...lines.map((line) => `  ${line}`));
  return parts.join("\n");
}

/** Turns node:test's event stream into JSON lines of outcomes. */
export default async function* outcomesReporter(source) {
  /** Every diagnostic of the run that is not its summary. */
  const diagnostics = [];
  /** Each file's stderr lines, the last ones kept. */
  const stderr = new Map();
  for await (const event of source) {
    const { data } = event;
    if (event.type === "test:diagnostic") {
      if (!SUMMARY.test(data.message)) diagnostics.push(data.message);
      continue;
    }
    if (event.type === "test:stderr") {
      const lines = [...(stderr.get(data.file) ?? []), ...String(data.message).split("\n").filter(Boolean)];
      stderr.set(data.file, lines.slice(-STDERR_LINES));
      continue;
    }
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const skipped = data.skip !== undefined && data.skip !== false;
    const suite = data.details?.type === "suite";
    const outcome = skipped ? "skip" : event.type === "test:pass" ? "pass" : "fail";
    const wholeFile = data.file !== undefined && data.name === data.file;
    const error = data.details?.error;
    yield `${JSON.stringify({
      file: data.file ? relative(process.cwd(), data.file) : undefined,
      line: data.line,
      column: data.column,
      name: data.name,
      suite,
      outcome,
      reason: typeof data.skip === "string" ? data.skip : undefined,
      error:
        outcome !== "fail" || suite
          ? undefined
          : wholeFile
            ? wholeFileMessage(error, data.file, diagnostics, stderr)
            : messageOf(error),
    })}\n`;
  }
}
