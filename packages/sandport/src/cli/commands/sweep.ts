import { unsupported } from "@sandport/core";
import type { CliContext, ProviderFlags } from "../context.js";
import { formatDuration, parseDuration } from "../duration.js";
import { EXIT } from "../exit-codes.js";
import { parseLabels } from "../labels.js";
import { Progress } from "../output/progress.js";
import { renderTable } from "../output/table.js";
import { createRuntime } from "../providers/create-runtime.js";
import { providersFor, settingsFor } from "../providers/load.js";
import { type DestroyOutcome, destroyVerified } from "../sweep/destroy-verified.js";
import { planSweep } from "../sweep/sweep-plan.js";

/** Flags of `sandport sweep`. */
interface SweepFlags extends ProviderFlags {
  readonly olderThan: string;
  readonly label: string[];
  readonly yes?: boolean;
}

/**
 * `sandport sweep`: lists the owner's sandboxes (the runtime never lists
 * another owner's) carrying the labels, and marks those older than
 * `--older-than`. A dry run by default; with `--yes` each is destroyed and
 * verified gone, and its outcome reported. Exits 1 when any is not verified gone.
 */
export default async function sweep(context: CliContext, flags: SweepFlags): Promise<number> {
  const olderThanMs = parseDuration(flags.olderThan, "--older-than");
  const labels = parseLabels(flags.label);
  const [descriptor] = providersFor(context, flags);
  const { runtime } = await createRuntime(descriptor!, settingsFor(context, flags), context.terminal.redactor);
  if (!runtime.findByLabels) throw unsupported(runtime.provider, "sweep", "the runtime cannot list its sandboxes");
  const progress = new Progress(context.terminal, { quiet: flags.json });
  progress.step(`listing ${runtime.provider} sandboxes`);
  const items = planSweep(await runtime.findByLabels(labels, { signal: context.signal }), olderThanMs, Date.now());
  const doomed = items.filter((item) => item.action === "destroy");
  progress.done(`${items.length} owned sandbox(es), ${doomed.length} older than ${flags.olderThan}`);

  const outcomes = new Map<string, DestroyOutcome>();
  if (flags.yes) {
    for (const [index, item] of doomed.entries()) {
      progress.step(`destroying ${item.handle.id} (${index + 1}/${doomed.length})`);
      const outcome = await destroyVerified(runtime, item.handle, context.signal);
      outcomes.set(item.handle.id, outcome);
      progress.done(
        `${item.handle.id}: ${outcome.outcome}${outcome.reason ? ` (${outcome.reason})` : ""}`,
        outcome.outcome !== "destroyed",
      );
    }
  }
  const outcomeOf = (id: string, action: string) =>
    outcomes.get(id)?.outcome ??
    (action === "destroy" ? "would destroy" : action === "keep-young" ? "kept: younger" : "kept: age unknown");

  if (flags.json) {
    context.terminal.json({
      provider: runtime.provider,
      dryRun: !flags.yes,
      olderThanMs,
      sandboxes: items.map((item) => ({
        id: item.handle.id,
        labels: item.handle.labels,
        createdAt: item.handle.createdAt ?? null,
        ageMs: item.ageMs ?? null,
        outcome: outcomeOf(item.handle.id, item.action),
        ...(outcomes.get(item.handle.id)?.reason ? { reason: outcomes.get(item.handle.id)?.reason } : {}),
      })),
    });
  } else if (items.length > 0) {
    const rows = items.map((item) => [
      item.handle.id,
      item.ageMs === undefined ? "?" : formatDuration(item.ageMs),
      Object.entries(item.handle.labels)
        .map(([key, value]) => `${key}=${value}`)
        .join(","),
      outcomeOf(item.handle.id, item.action),
    ]);
    context.terminal.line(renderTable(["sandbox", "age", "labels", "outcome"], rows));
    if (!flags.yes && doomed.length > 0) context.terminal.line(`dry run: pass --yes to destroy ${doomed.length}`);
  }
  return [...outcomes.values()].every((outcome) => outcome.outcome === "destroyed") ? EXIT.OK : EXIT.FAILED;
}
