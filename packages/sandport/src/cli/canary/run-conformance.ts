import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import type { ConformanceSummary } from "@sandport/core";
import type { Progress } from "../output/progress.js";
import type { Redactor } from "../output/redactor.js";
import { type CanaryPlan, PLAN_VARIABLE } from "./canary-plan.js";
import type { ReportedTest } from "./conformance-reporter.js";

/** What the conformance run needs besides the plan. */
export interface ConformanceRun {
  /** The umbrella's package.json: the suite and reporter are built beside it, in dist/cli/. */
  readonly manifestPath: string;
  readonly env: NodeJS.ProcessEnv;
  readonly progress: Progress;
  readonly redactor: Redactor;
  readonly signal: AbortSignal;
  /** Receives each failed test or suite as it finishes (for a live log). */
  readonly onFailure: (test: ReportedTest) => void;
}

/**
 * Runs the shared conformance suite against the planned provider in a child
 * `node --test` (the suite is `node:test` tests), reading its results as they
 * come, and summarises them. A child that exits non-zero without reporting a
 * failure (a crash, a failed hook) counts as a failure too. The child's stderr
 * is passed through, redacted.
 */
export function runConformance(plan: CanaryPlan, run: ConformanceRun): Promise<ConformanceSummary> {
  const dist = join(dirname(run.manifestPath), "dist", "cli");
  const args = [
    "--test",
    `--test-reporter=${pathToFileURL(join(dist, "conformance-reporter.js")).href}`,
    "--test-reporter-destination=stdout",
    join(dist, "conformance-suite.js"),
  ];
  // NODE_TEST_CONTEXT marks a process started by a test runner; the child must run its own suite and report
  // to this process, whoever started the canary.
  const { NODE_TEST_CONTEXT: _runner, ...env } = run.env;
  const child = spawn(process.execPath, args, {
    env: { ...env, [PLAN_VARIABLE]: JSON.stringify(plan) },
    stdio: ["ignore", "pipe", "pipe"],
    signal: run.signal,
  });
  let passed = 0;
  let skipped = 0;
  const failures: string[] = [];
  // A suite's event follows its children's. It fails whenever a test or hook in it does: count it only when
  // nothing below it failed (a failed before/after hook), so that one failure is never counted twice.
  const failedBelow: boolean[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    let test: ReportedTest;
    try {
      test = JSON.parse(line) as ReportedTest;
    } catch {
      return;
    }
    const explained = test.kind === "suite" && failedBelow[test.nesting] === true;
    if (test.kind === "suite") failedBelow[test.nesting] = false;
    if (test.outcome === "failed") {
      for (let depth = 0; depth < test.nesting; depth++) failedBelow[depth] = true;
      if (!explained) {
        failures.push(`${test.name}: ${test.error ?? "failed"}`);
        run.onFailure(test);
      }
    } else if (test.kind === "test" && test.outcome === "passed") {
      passed++;
    } else if (test.kind === "test") {
      skipped++;
    }
    if (test.kind === "suite" && test.nesting === 1) {
      const mark = test.outcome === "failed" ? "✖" : test.outcome === "skipped" ? "-" : "✔";
      run.progress.log(`  ${mark} ${test.name}`);
    }
    run.progress.update(`conformance: ${passed} passed, ${failures.length} failed, ${skipped} skipped`);
  });
  createInterface({ input: child.stderr }).on("line", (line) => run.progress.log(run.redactor.redact(line)));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code !== 0 && failures.length === 0) failures.push(`the conformance process exited ${signal ?? code}`);
      if (passed + skipped + failures.length === 0) failures.push("the conformance suite reported no check");
      resolve({ passed, failed: failures.length, skipped, failures });
    });
  });
}
