import { type CallBudget, deadlineSignal } from "@sandport/core/adapter";
import { apiError, type KubeApi } from "./sdk.js";
import type { ObjectMeta, WatchEvent } from "./sdk-types.js";
import { nodeTransport } from "./transport.js";

/** Why a watch stopped without the awaited state: its history is gone (410), or the stream ended. */
export type WatchEnd = "expired" | "ended" | "deleted";

/** The longest one watch request is asked to stay open (`timeoutSeconds`); a new one follows. */
const MAX_WATCH_SECONDS = 60;

/**
 * Watches one object by name (`fieldSelector=metadata.name=<name>`) from
 * `resourceVersion`, handing each `ADDED`/`MODIFIED` object to `done` until
 * it answers something. Resolves that answer, or why the watch stopped
 * first: `expired` (an `ERROR` event with a 410 `Status`: the version is
 * older than the API server keeps; list again), `deleted`, or `ended` (the
 * stream closed, as at its `timeoutSeconds`). A refused request rejects
 * with the API server's error; `budget` bounds the whole watch.
 */
export async function watchObject<T extends { metadata: ObjectMeta }, R>(
  api: KubeApi,
  collection: string,
  name: string,
  resourceVersion: string,
  budget: CallBudget,
  done: (object: T) => R | undefined,
): Promise<R | WatchEnd> {
  const query = new URLSearchParams({
    watch: "true",
    fieldSelector: `metadata.name=${name}`,
    resourceVersion,
    allowWatchBookmarks: "false",
    timeoutSeconds: String(Math.max(1, Math.min(MAX_WATCH_SECONDS, Math.ceil(budget.remainingMs() / 1000)))),
  });
  const stream = new AbortController();
  const response = await nodeTransport(api.caPem)(api.url(`${collection}?${query}`), {
    method: "GET",
    headers: { authorization: api.authorization(), accept: "application/json" },
    signal: deadlineSignal(Math.max(1, budget.remainingMs()), budget.signal, stream.signal),
  });
  if (!response.ok) throw apiError(response, await response.text());
  if (response.body === null) return "ended";
  const decoder = new TextDecoder();
  let pending = "";
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(chunk, { stream: true });
      for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
        const line = pending.slice(0, end).trim();
        pending = pending.slice(end + 1);
        if (line === "") continue;
        const event = JSON.parse(line) as WatchEvent<T & { code?: number }>;
        if (event.type === "ERROR") {
          if (event.object.code === 410) return "expired";
          throw new Error(`the watch of ${name} failed: ${JSON.stringify(event.object).slice(0, 300)}`);
        }
        if (event.type === "DELETED") return "deleted";
        if (event.type !== "ADDED" && event.type !== "MODIFIED") continue;
        const answer = done(event.object);
        if (answer !== undefined) return answer;
      }
    }
    return "ended";
  } finally {
    // The stream is left open by an early answer: closed here, so no socket outlives the wait.
    stream.abort();
  }
}
