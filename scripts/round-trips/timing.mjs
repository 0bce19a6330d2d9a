// W's wall time against the emulator, this checkout's build against the baseline's (a previous
// release's build, prepared by baseline.mjs), in alternating rounds in one process against one
// emulator, so both sides meet the same machine load and the same emulator.
import { median } from "./report.mjs";

/**
 * Runs W `rounds` times per side, alternating which side goes first, and prints the medians and the
 * ratio current / baseline. `run(load)` runs W once with the runtime built from `load`'s packages
 * and returns its milliseconds. A baseline that cannot run W (the adapter did not exist yet, or its
 * options differ) leaves the baseline column empty with the reason.
 */
export async function timeAgainstBaseline({ adapter, rounds, baseline, current, run }) {
  const times = { current: [], baseline: [] };
  let refused = baseline ? undefined : "no baseline (--baseline-dir) was given";
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["current", "baseline"] : ["baseline", "current"];
    for (const side of order) {
      if (side === "baseline" && refused) continue;
      try {
        times[side].push(await run(side === "current" ? current : baseline.load));
      } catch (error) {
        if (side === "current") throw error;
        refused = `${error?.code ?? error?.name}: ${String(error?.message).split("\n")[0].slice(0, 160)}`;
      }
    }
  }
  const ours = median(times.current);
  if (refused) {
    console.log(`W wall time, median of ${rounds}: ${Math.round(ours)} ms; baseline not run: ${refused}\n`);
    return { adapter, rounds, current: times.current, refused };
  }
  const theirs = median(times.baseline);
  console.log(
    `W wall time against the emulator, median of ${rounds} alternating rounds: current ${Math.round(ours)} ms, ` +
      `baseline ${baseline.ref} ${Math.round(theirs)} ms, current / baseline ${(ours / theirs).toFixed(2)}\n`,
  );
  return { adapter, rounds, current: times.current, baseline: times.baseline, ref: baseline.ref };
}
