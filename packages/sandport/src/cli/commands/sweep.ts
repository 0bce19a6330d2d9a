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
import { leftoverOutcome, sweepLeftovers } from "../sweep/leftover-sweep.js";
import {
  deleteSnapshotVerified,
  planSnapshotSweep,
  requireSnapshots,
  type SnapshotDeleteOutcome,
  type SnapshotSweepItem,
} from "../sweep/snapshot-sweep.js";
import { judgeAge, planSweep, type SweepAction } from "../sweep/sweep-plan.js";

/** Flags of `sandport sweep`. */
interface SweepFlags extends ProviderFlags {
  readonly olderThan: string;
  readonly label: string[];
  readonly yes?: boolean;
  readonly snapshots?: boolean;
}

/**
 * `sandport sweep`: lists the owner's sandboxes (the runtime never lists
 * another owner's) carrying the labels, and marks those older than
 * `--older-than`. A dry run by default; with `--yes` each is destroyed and
 * verified gone, and its outcome reported with its age when destroyed (from
 * the creation time the runtime reports: only sandboxes with one are ever
 * destroyed; `ageAtDestroyMs` in `--json`). With `--snapshots`, the owner's
 * snapshots carrying the labels too (the runtime never lists another owner's;
 * one without `listSnapshots`/`deleteSnapshot` is refused before anything is
 * listed), each deleted with `--yes` and checked gone from the listing. A
 * runtime that reclaims leftovers no listing shows at its first listing (the
 * local runtime: staging directories, cgroups and sockets of launches and
 * processes killed midway) has its report printed too, found and reclaimed.
 * Exits 1 when any is not verified gone, or, with `--yes`, when a leftover
 * found could not be reclaimed.
 */
export default async function sweep(context: CliContext, flags: SweepFlags): Promise<number> {
  const olderThanMs = parseDuration(flags.olderThan, "--older-than");
  const labels = parseLabels(flags.label);
  const [descriptor] = providersFor(context, flags);
  const { runtime } = await createRuntime(descriptor!, settingsFor(context, flags), context.terminal.redactor);
  if (!runtime.findByLabels) throw unsupported(runtime.provider, "sweep", "the runtime cannot list its sandboxes");
  const snapshotRuntime = flags.snapshots ? requireSnapshots(runtime) : undefined;
  const progress = new Progress(context.terminal, { quiet: flags.json });
  progress.step(`listing ${runtime.provider} sandboxes`);
  const items = planSweep(await runtime.findByLabels(labels, { signal: context.signal }), olderThanMs, Date.now());
  const doomed = items.filter((item) => item.action === "destroy");
  progress.done(`${items.length} owned sandbox(es), ${doomed.length} older than ${flags.olderThan}`);
  const leftovers = await sweepLeftovers(runtime, context.signal);
  if (leftovers && leftovers.found > 0) {
    progress.done(`${leftovers.found} leftover(s) no listing shows, ${leftovers.reclaimed} reclaimed`);
  }

  const outcomes = new Map<string, DestroyOutcome>();
  /** The age of each sandbox destroyed, when its destruction was verified. */
  const agesAtDestroy = new Map<string, number>();
  if (flags.yes) {
    for (const [index, item] of doomed.entries()) {
      progress.step(`destroying ${item.handle.id} (${index + 1}/${doomed.length})`);
      const outcome = await destroyVerified(runtime, item.handle, context.signal);
      outcomes.set(item.handle.id, outcome);
      const ageMs = outcome.outcome === "destroyed" ? judgeAge(item.handle.createdAt, 0, Date.now()).ageMs : undefined;
      if (ageMs !== undefined) agesAtDestroy.set(item.handle.id, ageMs);
      const note = outcome.reason ? ` (${outcome.reason})` : ageMs === undefined ? "" : ` at age ${age(ageMs)}`;
      progress.done(`${item.handle.id}: ${outcome.outcome}${note}`, outcome.outcome !== "destroyed");
    }
  }
  let snapshots: SnapshotSweepItem[] | undefined;
  const snapshotOutcomes = new Map<string, SnapshotDeleteOutcome>();
  if (snapshotRuntime) {
    progress.step(`listing ${runtime.provider} snapshots`);
    snapshots = await planSnapshotSweep(snapshotRuntime, labels, olderThanMs, Date.now(), context.signal);
    const expired = snapshots.filter((item) => item.action === "destroy");
    progress.done(`${snapshots.length} owned snapshot(s), ${expired.length} older than ${flags.olderThan}`);
    if (flags.yes) {
      for (const [index, { snapshot }] of expired.entries()) {
        progress.step(`deleting snapshot ${snapshot.id} (${index + 1}/${expired.length})`);
        const outcome = await deleteSnapshotVerified(snapshotRuntime, snapshot, context.signal);
        snapshotOutcomes.set(snapshot.id, outcome);
        progress.done(
          `${snapshot.id}: ${outcome.outcome}${outcome.reason ? ` (${outcome.reason})` : ""}`,
          outcome.outcome !== "deleted",
        );
      }
    }
  }
  const outcomeOf = (id: string, action: SweepAction) => outcomes.get(id)?.outcome ?? planned(action, "would destroy");
  const snapshotOutcomeOf = (id: string, action: SweepAction) =>
    snapshotOutcomes.get(id)?.outcome ?? planned(action, "would delete");

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
        ...(agesAtDestroy.has(item.handle.id) ? { ageAtDestroyMs: agesAtDestroy.get(item.handle.id) } : {}),
        ...(outcomes.get(item.handle.id)?.reason ? { reason: outcomes.get(item.handle.id)?.reason } : {}),
      })),
      ...(snapshots
        ? {
            snapshots: snapshots.map((item) => ({
              id: item.snapshot.id,
              labels: item.snapshot.labels,
              sourceId: item.snapshot.sourceId,
              createdAt: item.snapshot.createdAt,
              ageMs: item.ageMs ?? null,
              outcome: snapshotOutcomeOf(item.snapshot.id, item.action),
              ...(snapshotOutcomes.get(item.snapshot.id)?.reason
                ? { reason: snapshotOutcomes.get(item.snapshot.id)?.reason }
                : {}),
            })),
          }
        : {}),
      ...(leftovers
        ? {
            leftovers: {
              found: leftovers.found,
              reclaimed: leftovers.reclaimed,
              items: leftovers.leftovers.map(({ kind, path, reclaimed, reason }) => ({
                kind,
                path,
                reclaimed,
                ...(reason === undefined ? {} : { reason }),
              })),
            },
          }
        : {}),
    });
  } else {
    if (items.length > 0) {
      const rows = items.map((item) => [
        item.handle.id,
        age(item.ageMs),
        labelText(item.handle.labels),
        outcomeOf(item.handle.id, item.action),
      ]);
      context.terminal.line(renderTable(["sandbox", "age", "labels", "outcome"], rows));
      if (!flags.yes && doomed.length > 0) context.terminal.line(`dry run: pass --yes to destroy ${doomed.length}`);
    }
    if (snapshots && snapshots.length > 0) {
      const rows = snapshots.map((item) => [
        item.snapshot.id,
        age(item.ageMs),
        labelText(item.snapshot.labels),
        snapshotOutcomeOf(item.snapshot.id, item.action),
      ]);
      context.terminal.line(renderTable(["snapshot", "age", "labels", "outcome"], rows));
      const expired = snapshots.filter((item) => item.action === "destroy").length;
      if (!flags.yes && expired > 0) context.terminal.line(`dry run: pass --yes to delete ${expired} snapshot(s)`);
    }
    if (leftovers && leftovers.found > 0) {
      const rows = leftovers.leftovers.map((leftover) => [leftover.kind, leftover.path, leftoverOutcome(leftover)]);
      context.terminal.line(renderTable(["leftover", "path", "outcome"], rows));
      context.terminal.line(`leftovers: ${leftovers.found} found, ${leftovers.reclaimed} reclaimed`);
    }
  }
  const allDestroyed = [...outcomes.values()].every((outcome) => outcome.outcome === "destroyed");
  const allDeleted = [...snapshotOutcomes.values()].every((outcome) => outcome.outcome === "deleted");
  const allReclaimed = !flags.yes || leftovers === undefined || leftovers.reclaimed === leftovers.found;
  return allDestroyed && allDeleted && allReclaimed ? EXIT.OK : EXIT.FAILED;
}

/** What a dry run (or a kept item) reports: `removal` for one old enough, else why it is kept. */
function planned(action: SweepAction, removal: string): string {
  return action === "destroy" ? removal : action === "keep-young" ? "kept: younger" : "kept: age unknown";
}

function age(ageMs: number | undefined): string {
  return ageMs === undefined ? "?" : formatDuration(ageMs);
}

function labelText(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(",");
}
