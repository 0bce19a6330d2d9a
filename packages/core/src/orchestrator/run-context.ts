import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The run whose calls are in progress, across `await`s: the orchestrator sets
 * it around each run and each call of a session, so that what a runtime
 * wrapper reports (the limiter's events) names the run it served, without
 * the port carrying it. Calls no run made (a pool's refill, the caller's own)
 * have none.
 */
const current = new AsyncLocalStorage<string>();

/** Runs `work` as part of run `runId`: {@link currentRunId} answers it within, across awaits. */
export function inRun<T>(runId: string, work: () => T): T {
  return current.run(runId, work);
}

/** The id of the orchestrator run or session this call belongs to, or `undefined` outside any. */
export function currentRunId(): string | undefined {
  return current.getStore();
}
