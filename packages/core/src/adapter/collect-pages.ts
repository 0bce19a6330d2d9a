import type { SandportError } from "../errors/sandport-error.js";
import { type RetryPolicy, retry } from "../timing/retry.js";

/** Retry policy for one list page: a read, so safe to repeat; short, so the call's deadline dominates. */
export const PAGE_RETRY_POLICY: RetryPolicy = Object.freeze({ maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 2_000 });

/** How {@link collectPages} walks a list API. */
export interface CollectPagesOptions {
  /** Stops the walk (and any wait between retries) with `ABORTED`. */
  readonly signal?: AbortSignal;
  /** Retry policy for each page. Default {@link PAGE_RETRY_POLICY}. */
  readonly retry?: RetryPolicy;
  /** Maps what fetching a page throws; only retryable `SandportError`s are retried. */
  readonly mapError: (error: unknown) => SandportError;
}

/**
 * Walks every page of a list API: `nextPage` returns the next page's items,
 * or `undefined` once there are no more. Each page is retried on retryable
 * errors (a page read is safe to repeat); any other error ends the walk. Never
 * returns a partial list: a failed walk rejects.
 */
export async function collectPages<T>(
  nextPage: () => Promise<readonly T[] | undefined>,
  options: CollectPagesOptions,
): Promise<T[]> {
  const items: T[] = [];
  for (;;) {
    const page = await retry(
      async () => {
        try {
          return await nextPage();
        } catch (error) {
          throw options.mapError(error);
        }
      },
      { policy: options.retry ?? PAGE_RETRY_POLICY, ...(options.signal ? { signal: options.signal } : {}) },
    );
    if (page === undefined) return items;
    items.push(...page);
  }
}
