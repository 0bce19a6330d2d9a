// A node:test reporter for the canary's conformance child: one JSON line per
// finished test or suite ({ kind, name, nesting, outcome, durationMs, error }),
// which the parent reads as the suite runs.

/** A test runner event, as far as this reporter reads it. */
interface TestEvent {
  readonly type: string;
  readonly data: {
    readonly name?: string;
    readonly nesting?: number;
    readonly skip?: unknown;
    readonly todo?: unknown;
    readonly details?: { readonly duration_ms?: number; readonly type?: string; readonly error?: unknown };
  };
}

/** One finished test or suite, as the parent reads it. */
export interface ReportedTest {
  readonly kind: "test" | "suite";
  readonly name: string;
  readonly nesting: number;
  readonly outcome: "passed" | "failed" | "skipped";
  readonly durationMs: number;
  readonly error?: string;
}

function messageOf(error: unknown): string {
  // node:test wraps the test's error: the cause is what the test threw.
  const inner = (error as { cause?: unknown } | undefined)?.cause ?? error;
  const text = inner instanceof Error ? inner.message : String(inner);
  return text.split("\n").slice(0, 3).join(" ").slice(0, 500);
}

/** The reporter: a transform from test events to JSON lines. */
export default async function* conformanceReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { data } = event;
    const skipped = data.skip !== undefined && data.skip !== false;
    const line: ReportedTest = {
      kind: data.details?.type === "suite" ? "suite" : "test",
      name: data.name ?? "",
      nesting: data.nesting ?? 0,
      outcome: event.type === "test:fail" ? "failed" : skipped ? "skipped" : "passed",
      durationMs: data.details?.duration_ms ?? 0,
      ...(event.type === "test:fail" ? { error: messageOf(data.details?.error) } : {}),
    };
    yield `${JSON.stringify(line)}\n`;
  }
}
