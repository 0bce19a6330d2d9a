// A node:test reporter that writes one JSON line per finished test or suite: where it is, its name,
// and whether it passed, failed or was skipped (with the reason). scripts/run-tests.mjs adds it when
// SANDPORT_TEST_OUTCOMES names a file, so that scripts/compare-outcomes.mjs can tell which tests a run
// without bubblewrap skipped and why.
import { relative } from "node:path";

/** Turns node:test's event stream into JSON lines of outcomes. */
export default async function* outcomesReporter(source) {
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { data } = event;
    const skipped = data.skip !== undefined && data.skip !== false;
    yield `${JSON.stringify({
      file: data.file ? relative(process.cwd(), data.file) : undefined,
      line: data.line,
      column: data.column,
      name: data.name,
      suite: data.details?.type === "suite",
      outcome: skipped ? "skip" : event.type === "test:pass" ? "pass" : "fail",
      reason: typeof data.skip === "string" ? data.skip : undefined,
    })}\n`;
  }
}
