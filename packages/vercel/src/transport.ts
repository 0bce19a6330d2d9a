/**
 * The `fetch` handed to the SDK. The SDK repeats a request whose connection
 * failed (twice, from 400 ms); for a create or a command start that is not
 * safe: the first attempt may have created the sandbox or started the
 * command, and a repeat would make a second one, or fail on the name it
 * took. So a failed connection of those two requests ends the call instead.
 *
 * @module
 */

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
  return typeof error === "object" && error !== null && (error as { [OUTCOME_UNKNOWN]?: unknown })[OUTCOME_UNKNOWN] === true;
}

/** Wraps `base` so that the SDK never repeats a create or a command start whose connection failed. */
export function guardedFetch(base: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    try {
      return await base(input, init);
    } catch (error) {
      const what = unrepeatable(input, init);
      if (what === undefined || init?.signal?.aborted) throw error;
      throw new UnrepeatableRequestError(what, error);
    }
  };
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
