// A node:test reporter that writes one JSON line per finished test or suite: where it is, its name,
// and whether it passed, failed or was skipped (with the reason), and for a failed test the message
// of its error. scripts/run-tests.mjs adds it to every run: it prints the failed tests last, and
// when SANDPORT_TEST_OUTCOMES names a file it keeps the lines there, so that
// scripts/compare-outcomes.mjs can tell which tests a run without bubblewrap skipped and why.
import { relative } from "node:path";

/** How many lines of a failure's message are kept. */
const ERROR_LINES = 12;

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

/** Turns node:test's event stream into JSON lines of outcomes. */
export default async function* outcomesReporter(source) {
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { data } = event;
    const skipped = data.skip !== undefined && data.skip !== false;
    const suite = data.details?.type === "suite";
    const outcome = skipped ? "skip" : event.type === "test:pass" ? "pass" : "fail";
    yield `${JSON.stringify({
      file: data.file ? relative(process.cwd(), data.file) : undefined,
      line: data.line,
      column: data.column,
      name: data.name,
      suite,
      outcome,
      reason: typeof data.skip === "string" ? data.skip : undefined,
      error: outcome === "fail" && !suite ? messageOf(data.details?.error) : undefined,
    })}\n`;
  }
}
