import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { type EvidenceEndpoint, evidenceEndpoint } from "@sandport/core";
import { buildRecord } from "../canary/build-record.js";
import { type CanaryPlan, RUN_LABEL } from "../canary/canary-plan.js";
import { runConformance } from "../canary/run-conformance.js";
import { runProbes } from "../canary/run-probes.js";
import { CliError } from "../cli-error.js";
import type { CliContext, ProviderFlags } from "../context.js";
import { formatDuration, parseDuration } from "../duration.js";
import { EXIT } from "../exit-codes.js";
import { Progress } from "../output/progress.js";
import { createRuntime, type ProviderRuntime } from "../providers/create-runtime.js";
import { providersFor, settingsFor } from "../providers/load.js";

/** Flags of `sandport canary`. */
interface CanaryFlags extends ProviderFlags {
  readonly out: string;
  readonly runId?: string;
  readonly idle: string;
  readonly skipCheck: string[];
}

/** The owner canary sandboxes carry unless `--owner` says otherwise; the workflow sweeps it. */
const CANARY_OWNER = "sandport-canary";

/**
 * `sandport canary`: the shared conformance suite, then a probe of every
 * capability the adapter declares `unknown`, against the provider as
 * configured (a live service, or an emulator through `--endpoint`). Writes the
 * evidence record whatever the outcome, failed checks and probes included; the
 * record says which endpoint the run reached and the parameters of each probe.
 * Exits 3, with one line, when the provider's credentials are missing; 1 when
 * a check or probe failed.
 */
export default async function canary(context: CliContext, flags: CanaryFlags): Promise<number> {
  const [descriptor] = providersFor(context, flags);
  const provider = descriptor!.provider;
  const settings = { ...settingsFor(context, flags), owner: flags.owner ?? CANARY_OWNER };
  const idleMs = parseDuration(flags.idle, "--idle");
  if (flags.skipCheck.length > 0) await requireKnownChecks(context.manifestPath, flags.skipCheck);
  const built = await createRuntime(descriptor!, settings, context.terminal.redactor);
  const { runtime } = built;
  const endpoint = endpointOf(built);
  requireTestkit(context.manifestPath);
  const runId = flags.runId ?? defaultRunId(context.env);
  const skip: Record<string, string> = { ...descriptor!.canarySkip };
  for (const id of flags.skipCheck) skip[id] = "skipped with --skip-check";
  const plan: CanaryPlan = {
    provider,
    options: flags.option,
    endpoint: flags.endpoint,
    owner: settings.owner,
    runId,
    skip,
  };
  const progress = new Progress(context.terminal, { quiet: flags.json });
  const started = performance.now();
  progress.step(`canary ${provider}: conformance suite`);
  const conformance = await runConformance(plan, {
    manifestPath: context.manifestPath,
    env: context.env,
    progress,
    redactor: context.terminal.redactor,
    signal: context.signal,
    onFailure: (test) => progress.log(`✖ ${test.name}: ${test.error ?? "failed"}`),
  });
  progress.done(
    `conformance: ${conformance.passed} passed, ${conformance.failed} failed, ${conformance.skipped} skipped`,
    conformance.failed > 0,
  );

  const { records: probes, unprobed } = await runProbes(
    { runtime, labels: { [RUN_LABEL]: runId }, idleMs, signal: context.signal },
    (capability, record) => {
      if (!record) return progress.step(`probe ${capability}`);
      const shown = record.outcome === "passed" ? `${String(record.value)}` : `failed (${record.reason})`;
      progress.done(
        `probe ${capability}: ${shown} in ${formatDuration(record.durationMs)}`,
        record.outcome === "failed",
      );
    },
  );
  if (unprobed.length > 0) progress.log(`no probe for ${unprobed.join(", ")}: they stay unknown`);
  const record = buildRecord(descriptor!, runId, endpoint, conformance, probes);
  const out = resolve(context.cwd, flags.out.replace("<provider>", provider));
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(record, null, 2)}\n`);
  const failed = conformance.failed > 0 || probes.some((probe) => probe.outcome === "failed");
  if (flags.json) context.terminal.json(record);
  else {
    const verdict = failed ? context.terminal.color.red("FAILED") : context.terminal.color.green("passed");
    const where = endpoint.kind === "custom" ? ` (gathered at ${endpoint.url}, not the default endpoint)` : "";
    context.terminal.line(
      `canary ${provider}: ${verdict} in ${formatDuration(performance.now() - started)}; evidence${where} written to ${out}`,
    );
  }
  return failed ? EXIT.FAILED : EXIT.OK;
}

/**
 * Where the run reaches the provider: a custom endpoint when an endpoint option
 * was set by `--endpoint`, `--option` or the environment, else the default one.
 */
function endpointOf({ descriptor, options }: ProviderRuntime): EvidenceEndpoint {
  for (const name of descriptor.endpoint) {
    const value = options.values[name];
    const source = options.sources[name];
    if (typeof value === "string" && source !== undefined && source !== "default") return evidenceEndpoint(value);
  }
  return evidenceEndpoint(undefined);
}

/** The conformance suite comes from the test kit, an optional peer: refuse clearly (exit 4) without it. */
function requireTestkit(manifestPath: string): void {
  try {
    createRequire(manifestPath).resolve("@sandport/testkit/conformance");
  } catch (error) {
    throw new CliError(
      "TESTKIT_MISSING",
      "canary runs the conformance suite from @sandport/testkit, which is not installed: npm install @sandport/testkit",
      { cause: error },
    );
  }
}

/** Refuses (exit 2, before anything is launched or written) a `--skip-check` id the conformance suite does not have. */
async function requireKnownChecks(manifestPath: string, ids: readonly string[]): Promise<void> {
  requireTestkit(manifestPath);
  const { CONFORMANCE_CHECKS } = await import("@sandport/testkit/conformance");
  const known = Object.keys(CONFORMANCE_CHECKS);
  const unknown = ids.filter((id) => !known.includes(id));
  if (unknown.length === 0) return;
  throw new CliError(
    "USAGE",
    `--skip-check ${unknown.join(", ")}: no such conformance check (known ids: ${known.join(", ")})`,
  );
}

/** A run id from CI when there is one (`github-<run id>-<attempt>`), else from the clock. */
function defaultRunId(env: NodeJS.ProcessEnv): string {
  if (env.GITHUB_RUN_ID) return `github-${env.GITHUB_RUN_ID}-${env.GITHUB_RUN_ATTEMPT ?? "1"}`;
  return `local-${Date.now()}`;
}
