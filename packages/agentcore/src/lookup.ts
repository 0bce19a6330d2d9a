import { LAUNCH_KEY_LABEL } from "@sandport/core";
import { type CallBudget, listPages, ownedLookups, type SandboxListing } from "@sandport/core/adapter";
import type { AgentCoreContext, SessionInfo } from "./context.js";
import { type AgentCoreHandle, handleFromSession, validSessionId } from "./handle.js";
import type { SessionSummary } from "./internal/sdk-types.js";
import { signalOf } from "./invoke.js";
import { nameMatches, readName } from "./ownership.js";

/**
 * `getById` (`getOwned`: Get, then the labels file of a session whose name
 * is ours) and `findByLabels` (`findOwned`: the interpreter's `READY`
 * sessions, every page, narrowed by the digests in their names, then each
 * candidate's labels file read and checked again by the recipe).
 */
export const { getById, findByLabels } = ownedLookups<AgentCoreContext, SessionInfo, AgentCoreHandle>({
  listing: agentCoreListing,
  validId: validSessionId,
  toHandle: (info) => handleFromSession(info.sessionId, info.labels ?? {}, info.createdAt),
});

/**
 * Ids of our `READY` sessions started with `launchKey`, for the cleanup of an
 * abandoned launch: the list alone, the name's launch-key digest compared (no file read).
 */
export async function findByLaunchKey(
  context: AgentCoreContext,
  launchKey: string,
  budget: CallBudget,
): Promise<string[]> {
  const sessions = await readySessions(context, "background cleanup", budget);
  const query = { [LAUNCH_KEY_LABEL]: launchKey };
  return sessions
    .filter((session) => nameMatches(readName(session.name), context.options.owner, query))
    .map((session) => session.sessionId as string);
}

/**
 * The interpreter's `READY` sessions whose names carry our owner and every
 * queried label, each with its labels file read. A session that ended
 * between the list and the read is left out.
 */
function agentCoreListing(context: AgentCoreContext): SandboxListing<SessionInfo> {
  return {
    idOf: (info) => info.sessionId,
    list: async (query, operation, budget) => {
      const sessions = await readySessions(context, operation, budget);
      const candidates = sessions.filter((session) =>
        nameMatches(readName(session.name), context.options.owner, query),
      );
      const infos: SessionInfo[] = [];
      for (const session of candidates) {
        const record = { sessionId: session.sessionId as string, name: session.name, createdAt: session.createdAt };
        const info = await context.withLabels(record, budget);
        if (info !== undefined) infos.push(info);
      }
      return infos;
    },
  };
}

/** Every `READY` session of the interpreter, across every page (each retried on retryable errors). */
async function readySessions(
  context: AgentCoreContext,
  operation: string,
  budget: CallBudget,
): Promise<SessionSummary[]> {
  const sdk = await context.sdk();
  const { safe } = await context.clients();
  let nextToken: string | undefined;
  let done = false;
  const nextPage = async () => {
    if (done) return undefined;
    const page = await safe.send(
      new sdk.ListCodeInterpreterSessionsCommand({
        codeInterpreterIdentifier: context.options.codeInterpreterId,
        maxResults: context.options.listPageSize,
        status: "READY",
        ...(nextToken === undefined ? {} : { nextToken }),
      }),
      { abortSignal: signalOf(budget) },
    );
    nextToken = page.nextToken ?? undefined;
    done = nextToken === undefined;
    return page.items ?? [];
  };
  const sessions = await listPages(context, operation, budget, nextPage);
  return sessions.filter((session) => session.status === "READY" && typeof session.sessionId === "string");
}
