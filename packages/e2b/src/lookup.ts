import {
  type AttemptInfo,
  LAUNCH_KEY_LABEL,
  type Labels,
  type OpOptions,
  OWNER_LABEL,
  retry,
  validateLabels,
  withDeadline,
} from "@sandport/core";
import { mapE2BError } from "./errors.js";
import type { RuntimeContext } from "./internal/context.js";
import type { E2BSandboxInfo } from "./internal/sdk-types.js";
import { PROVIDER } from "./options.js";
import { assertSandboxId, type E2BHandle, handleFromInfo, isOwned, matchesLabels } from "./ownership.js";

/** Retry policy for one list page: a read, so safe to repeat; kept short so the call deadline dominates. */
const PAGE_RETRY = { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 2_000 } as const;

/**
 * Rebuilds a handle from a sandbox id. Resolves `undefined` when the sandbox
 * does not exist; rejects `FOREIGN_SANDBOX` when it lacks our ownership marker.
 * One `GET /sandboxes/{id}`; never connects (which would resume a paused sandbox).
 */
export async function getSandboxById(
  context: RuntimeContext,
  sandboxId: string,
  op?: OpOptions,
): Promise<E2BHandle | undefined> {
  assertSandboxId(sandboxId);
  const requestTimeoutMs = op?.timeoutMs ?? context.options.timeouts.lookupMs;
  return withDeadline(
    op,
    { provider: PROVIDER, operation: "getById", defaultTimeoutMs: context.options.timeouts.lookupMs },
    async (signal) => {
      const info = await context.ownedInfo(sandboxId, "getById", { requestTimeoutMs, signal });
      return info ? handleFromInfo(info) : undefined;
    },
  );
}

/**
 * Every sandbox of ours carrying all the given labels (reserved ones such as
 * `sandport.launch-key` may be named). Walks every page of the list API; the
 * metadata filter is applied by the server and checked again here, and
 * sandboxes without our ownership marker are never returned. Running and
 * paused sandboxes are both listed.
 */
export async function findSandboxesByLabels(
  context: RuntimeContext,
  labels: Labels,
  op?: OpOptions,
): Promise<E2BHandle[]> {
  const wanted = validateLabels(labels, { allowReserved: true, provider: PROVIDER }) ?? {};
  if (wanted[OWNER_LABEL] !== undefined && wanted[OWNER_LABEL] !== context.options.owner) return [];
  const { options } = context;
  const requestTimeoutMs = op?.timeoutMs ?? options.timeouts.lookupMs;
  return withDeadline(
    op,
    { provider: PROVIDER, operation: "findByLabels", defaultTimeoutMs: options.timeouts.lookupMs },
    async (signal) => {
      const sdk = await context.sdk();
      const query = { ...wanted, [OWNER_LABEL]: options.owner };
      const paginator = sdk.Sandbox.list({
        ...context.fields({ requestTimeoutMs }),
        query: { metadata: query, state: ["running", "paused"] },
        limit: options.listPageSize,
      });
      const found = new Map<string, E2BHandle>();
      while (paginator.hasNext) {
        const page = await retry(
          (_attempt: AttemptInfo) => nextPage(() => paginator.nextItems(context.fields({ requestTimeoutMs, signal }))),
          { policy: PAGE_RETRY, signal },
        );
        for (const info of page) {
          if (!isOwned(info.metadata, options.owner) || !matchesLabels(info.metadata, query)) continue;
          const launchKey = info.metadata[LAUNCH_KEY_LABEL];
          if (launchKey !== undefined && context.condemnedLaunchKeys.has(launchKey)) continue;
          context.markOwned(info.sandboxId);
          found.set(info.sandboxId, handleFromInfo(info));
        }
      }
      return [...found.values()];
    },
  );
}

async function nextPage(fetch: () => Promise<E2BSandboxInfo[]>): Promise<E2BSandboxInfo[]> {
  try {
    return await fetch();
  } catch (error) {
    throw mapE2BError(error, { operation: "findByLabels" });
  }
}
