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
import { reportError } from "../report-error.js";
import { parseCollectSpecs, readFileSpecs } from "../run/transfer-specs.js";

/** Flags of `sandport run`. */
interface RunFlags extends ProviderFlags {
  readonly file: string[];
  readonly collect: string[];
  readonly env: string[];
  readonly label: string[];
  readonly timeout?: string;
  readonly verbose?: boolean;
}

/**
 * `sandport run`: one orchestrated workload. The command's output is written
 * as it arrives (stdout to stdout, stderr to stderr, untouched), or at its exit
 * where the runtime cannot stream; progress goes
 * to stderr only on a terminal or with `--verbose`. Collected files are written
 * even when the command failed. Exits with the command's exit code, 124 when
 * it timed out, 125 when Sandport failed, 130 when interrupted.
 */
export default async function run(context: CliContext, flags: RunFlags, argv: string[]): Promise<number> {
  const progress = new Progress(context.terminal, {
    quiet: flags.json || !(context.terminal.interactive || flags.verbose),
  });
  const streamed = !flags.json;
  let result: WorkloadResult | undefined;
  try {
    const [descriptor] = providersFor(context, flags);
    const files = await readFileSpecs(context.cwd, flags.file);
    const collect = parseCollectSpecs(context.cwd, flags.collect);
    const env = Object.fromEntries(flags.env.map((text) => splitAssignment(text, "--env")));
    const timeoutMs = flags.timeout === undefined ? undefined : parseDuration(flags.timeout, "--timeout");
    const { runtime } = await createRuntime(descriptor!, settingsFor(context, flags), context.terminal.redactor);
    let outputSeen = false;
    const onEvent = (event: OrchestratorEvent) => {
      if (event.type === "step-output" && streamed) {
        outputSeen = true;
        (event.stream === "stdout" ? process.stdout : process.stderr).write(event.data);
        return;
      }
      // A runtime that cannot stream (no execStream) hands the output over once the command has exited.
      if (event.type === "step-exited" && streamed && !outputSeen) {
        process.stdout.write(event.result.stdout);
        process.stderr.write(event.result.stderr);
      }
      describe(event, progress);
    };
    progress.step(`launching a ${runtime.provider} sandbox`);
    result = await new SandboxOrchestrator(runtime, { onEvent }).run(
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
    const code = reportError(error, context.terminal, context.signal.aborted);
    return code === EXIT.INTERRUPTED ? code : EXIT.RUN_FAILED;
  }
  progress.stop();
  const step = result.steps[0]?.result;
  if (flags.json) {
    context.terminal.json({
      sandboxId: result.sandboxId,
      exitCode: step?.exitCode ?? null,
      timedOut: step?.timedOut ?? false,
      truncated: step?.truncated ?? false,
      durationMs: step?.durationMs,
      stdout: step?.stdout,
      stderr: step?.stderr,
      collected: Object.keys(result.collected),
      teardown: result.teardown.outcome,
      ...(result.possibleLeaks.length === 0
        ? {}
        : { possibleLeaks: result.possibleLeaks.map((leak) => leak.launchKey) }),
    });
  }
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
