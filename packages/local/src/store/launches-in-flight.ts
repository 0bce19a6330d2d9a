/**
 * Sandbox ids whose launch is under way in this process. A leftover named by
 * this process (a staging directory, a sandbox cgroup) is abandoned once its
 * launch is no longer here: nothing in this process will finish or remove it
 * (a launch that failed and could not clean up, e.g. on `EMFILE`). Counted,
 * so that nested marks of one launch (the launch and its store) end together.
 */
const inFlight = new Map<string, number>();

/** Marks the launch of sandbox `id` as under way in this process, until {@link endLaunch}. */
export function beginLaunch(id: string): void {
  inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
}

/** Ends one {@link beginLaunch} of sandbox `id`. */
export function endLaunch(id: string): void {
  const count = (inFlight.get(id) ?? 1) - 1;
  if (count > 0) inFlight.set(id, count);
  else inFlight.delete(id);
}

/** Whether a launch of sandbox `id` is under way in this process. */
export function launchInFlight(id: string): boolean {
  return inFlight.has(id);
}
