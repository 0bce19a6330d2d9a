import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { type OrchestratorEvent, SandboxOrchestrator, WorkloadError, type WorkloadResult } from "@sandport/core";
import type { CliContext, ProviderFlags } from "../context.js";
import { formatDuration, parseDuration } from "../duration.js";
import { EXIT } from "../exit-codes.js";
import { parseLabels } from "../labels.js";
import { Progress } from "../output/progress.js";
import { createRuntime } from "../providers/create-runtime.js";
import { providersFor, settingsFor } from "../providers/load.js";
import { splitAssignment } from "../providers/option-values.js";
import { runResultJson } from "../run/result-json.js";
import { StreamedOutput } from "../run/streamed-output.js";
import { parseCollectSpecs, readFileSpecs } from "../run/transfer-specs.js";
import { readPriceTable, usageSummary } from "../run/usage-summary.js";

/** Flags of `sandport run`. */
interface RunFlags extends ProviderFlags {
  readonly file: string[];
  readonly collect: string[];
  readonly env: string[];
  readonly label: string[];
  readonly timeout?: string;
  readonly quiet?: boolean;
  readonly prices?: string;
}

/**
 * `sandport run`: one orchestrated workload. The command's output is written
 * as it arrives (stdout to stdout, stderr to stderr, untouched), or at its exit
 * where the runtime cannot stream; what the result holds that the stream did
 * not show (a runtime's own account of a program it could not start) follows
 * at the exit. Progress goes to stderr, a line per step off a terminal, unless
 * `--quiet` or `--json`, ending with the sandbox's usage (its life, commands,
 * bytes in and out, and an estimate from `--prices`' table); `--json` has it as `usage`. Collected files are written even when the command
 * failed. Exits with the command's exit code, 124 when it timed out, 125 when
 * Sandport failed (a failure of the command line is 2, as for every command),
 * 130 when interrupted; Sandport's failures are thrown for the entry point to report.
 */
export default async function run(context: CliContext, flags: RunFlags, argv: string[]): Promise<number> {
  const progress = new Progress(context.terminal, { quiet: flags.json === true || flags.quiet === true });
  const streamed = !flags.json;
  let result: WorkloadResult | undefined;
  try {
    const [descriptor] = providersFor(context, flags);
    const files = await readFileSpecs(context.cwd, flags.file);
    const collect = parseCollectSpecs(context.cwd, flags.collect);
    const env = Object.fromEntries(flags.env.map((text) => splitAssignment(text, "--env")));
    const timeoutMs = flags.timeout === undefined ? undefined : parseDuration(flags.timeout, "--timeout");
    const prices = await readPriceTable(context.cwd, flags.prices);
    const { runtime } = await createRuntime(descriptor!, settingsFor(context, flags), context.terminal.redactor);
    const shown = new StreamedOutput(context.terminal);
    const onEvent = (event: OrchestratorEvent) => {
      if (event.type === "step-output" && streamed) {
        shown.write(event.stream, event.data);
        return;
      }
      if (event.type === "step-exited" && streamed) shown.finish(event.result);
      describe(event, progress);
    };
    progress.step(`launching a ${runtime.provider} sandbox`);
    result = await new SandboxOrchestrator(runtime, { onEvent, ...(prices ? { prices } : {}) }).run(
      {
        launch: { labels: parseLabels(flags.label) },
        files,
        steps: [{ argv, env, ...(timeoutMs === undefined ? {} : { timeoutMs }) }],
        collect: collect.map((spec) => spec.path),
        teardown: "always",
      },
      { signal: context.signal },
    );
    await writeCollected(result, collect);
  } catch (error) {
    progress.stop();
    if (error instanceof WorkloadError)
      await writeCollected(error.result, parseCollectSpecs(context.cwd, flags.collect));
    throw error;
  }
  progress.stop();
  const step = result.steps[0]?.result;
  if (flags.json) context.terminal.json(runResultJson(result));
  for (const leak of result.possibleLeaks) {
    context.terminal.note(`sandport: a sandbox may have leaked (launch key ${leak.launchKey}): ${leak.error.message}`);
  }
  if (!step) return EXIT.RUN_FAILED;
  if (step.timedOut) {
    context.terminal.note(`sandport: the command ran past --timeout ${flags.timeout} and was killed`);
    return EXIT.RUN_TIMEOUT;
  }
  if (step.exitCode === null) {
    context.terminal.note(`sandport: the command was killed${step.truncated ? " (output limit)" : ""}`);
    return EXIT.RUN_FAILED;
  }
  return step.exitCode;
}

function describe(event: OrchestratorEvent, progress: Progress): void {
  switch (event.type) {
    case "launched":
      progress.done(`sandbox ${event.sandboxId} launched (${formatDuration(event.durationMs)})`);
      return;
    case "files-written":
      progress.done(`wrote ${event.paths.length} file(s), ${event.bytes} bytes`);
      return;
    case "step-exited":
      progress.done(`exited ${event.result.exitCode ?? "(killed)"} after ${formatDuration(event.result.durationMs)}`);
      progress.step("collecting and tearing down");
      return;
    case "collected":
      progress.done(`collected ${event.path} (${event.bytes} bytes)`);
      return;
    case "destroyed":
      progress.done(`sandbox ${event.sandboxId} destroyed`);
      return;
    case "teardown-failed":
      progress.done(`teardown of ${event.sandboxId} failed: ${event.error.message}`, true);
      return;
    case "usage":
      progress.done(usageSummary(event.usage));
      return;
    default:
      return;
  }
}

async function writeCollected(result: WorkloadResult, specs: ReturnType<typeof parseCollectSpecs>): Promise<void> {
  for (const spec of specs) {
    const bytes = result.collected[spec.path];
    if (bytes === undefined) continue;
    await mkdir(dirname(spec.local), { recursive: true });
    await writeFile(spec.local, bytes);
  }
}
