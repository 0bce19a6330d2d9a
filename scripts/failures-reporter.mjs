// A node:test reporter that writes each failed test (not the suites around it) as a short block:
// its file and line, its name, and the first lines of its error. scripts/run-tests.mjs prints these
// blocks last, after every report, so that the end of a long run's output says what failed and where.
import { relative } from "node:path";

/** How many lines of a failure's error are kept. */
const ERROR_LINES = 12;

/** Turns node:test's event stream into one block per failed test. */
export default async function* failuresReporter(source) {
  for await (const event of source) {
    if (event.type !== "test:fail" || event.data.details?.type === "suite") continue;
    const { data } = event;
    const where = data.file ? `${relative(process.cwd(), data.file)}:${data.line}` : "(no file)";
    const error = data.details?.error;
    const text = String(error?.cause?.stack ?? error?.cause ?? error?.message ?? error ?? "");
    // The message, without the stack: up to the first "at …" frame after the first line (the file and line say where).
    const frame = text.split("\n").findIndex((line, index) => index > 0 && /^\s+at /.test(line));
    const message = frame === -1 ? text.split("\n") : text.split("\n").slice(0, frame);
    const lines = message
      .filter((line) => line.trim() !== "")
      .slice(0, ERROR_LINES)
      .map((line) => `    ${line}`);
    yield `✖ ${where} ${data.name}\n${lines.join("\n")}\n`;
  }
}
