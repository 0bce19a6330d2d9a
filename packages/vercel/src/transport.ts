/**
 * The `fetch` handed to the SDK, which corrects two things the SDK does:
 *
 * - It repeats a request whose connection failed (twice, from 400 ms). For a
 *   create or a command start that is not safe: the first attempt may have
 *   created the sandbox or started the command, and a repeat would make a
 *   second one, or fail on the name it took. So a failed connection of those
 *   two requests ends the call instead.
 * - It decodes a streamed (NDJSON) answer chunk by chunk as it arrives, so a
 *   multi-byte character split between two network chunks turns into two
 *   U+FFFD. So streamed answers are handed over in whole lines.
 *
 * @module
 */

import { isUnreachable } from "@sandport/core/adapter";

/** Marks the error of an unrepeatable request whose connection failed: its effect is unknown. */
const OUTCOME_UNKNOWN = Symbol.for("sandport.vercel.outcome-unknown");

/**
 * A create or command start whose connection failed: it may or may not have
 * taken effect. Named `AbortError` because that is the one name the SDK's
 * retry loop gives up on at once; {@link isOutcomeUnknownRequest} tells it
 * apart from a real abort.
 */
class UnrepeatableRequestError extends Error {
  readonly [OUTCOME_UNKNOWN] = true;

  constructor(what: string, cause: unknown) {
    super(`the connection of ${what} failed; it may have taken effect, so it is not repeated`, { cause });
    this.name = "AbortError";
  }
}

/** True for what {@link guardedFetch} throws when an unrepeatable request lost its connection. */
export function isOutcomeUnknownRequest(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && (error as { [OUTCOME_UNKNOWN]?: unknown })[OUTCOME_UNKNOWN] === true
  );
}

/**
 * Wraps `base` so that the SDK never repeats a create or a command start
 * whose connection failed, and never sees a streamed answer cut inside a line.
 */
export function guardedFetch(base: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      const what = unrepeatable(input, init);
      // A connection that never opened sent nothing: the SDK may repeat it, and its failure says so.
      if (what === undefined || init?.signal?.aborted || isUnreachable(error)) throw error;
      throw new UnrepeatableRequestError(what, error);
    }
    return isNdjson(response) ? inWholeLines(response) : response;
  };
}

function isNdjson(response: Response): boolean {
  return response.body !== null && response.headers.get("content-type") === "application/x-ndjson";
}

/** The same response, its body re-chunked so that every chunk ends with a line (the last one may not). */
function inWholeLines(response: Response): Response {
  let pending = new Uint8Array(0);
  const lines = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const joined = new Uint8Array(pending.byteLength + chunk.byteLength);
      joined.set(pending);
      joined.set(chunk, pending.byteLength);
      const end = joined.lastIndexOf(0x0a) + 1;
      if (end > 0) controller.enqueue(joined.subarray(0, end));
      pending = joined.slice(end);
    },
    flush(controller) {
      if (pending.byteLength > 0) controller.enqueue(pending);
    },
  });
  const relayed = new Response((response.body as ReadableStream<Uint8Array>).pipeThrough(lines), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // The SDK reads the URL of an answer to name the session in its errors.
  Object.defineProperty(relayed, "url", { value: response.url });
  return relayed;
}

/** What an unrepeatable request does (`"a create"`, `"a command start"`), or `undefined` for any other. */
function unrepeatable(input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]): string | undefined {
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  if (method !== "POST") return undefined;
  const url = input instanceof Request ? input.url : String(input);
  const path = new URL(url).pathname;
  if (/\/v[23]\/sandboxes$/.test(path)) return "a create";
  if (/\/sandboxes\/sessions\/[^/]+\/cmd$/.test(path)) return "a command start";
  return undefined;
}
