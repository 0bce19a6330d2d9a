import type { HarnessV1NetworkSandboxSession, HarnessV1SandboxProvider } from "@ai-sdk/harness";
import { checkBridgeOptions, type Labels, type SandboxHandle, SandportError } from "@sandport/core";
import {
  HARNESS_PROVIDER_OPTION_KEYS,
  type HarnessSandboxProviderOptions,
  IDENTITY_LABEL,
  SESSION_LABEL,
} from "./harness-options.js";
import { networkSession } from "./network-session.js";
import { sessionOf } from "./session.js";
import { opOptions, sessionContext } from "./session-context.js";

/** The harness's `createSession` options. */
type CreateOptions = NonNullable<Parameters<HarnessV1SandboxProvider["createSession"]>[0]>;

/**
 * A `HarnessV1SandboxProvider` for `@ai-sdk/harness`'s `HarnessAgent`
 * (`sandbox: createHarnessSandboxProvider({ runtime })`), launching one
 * sandbox per harness session. A `sessionId` is stored as a label: creating
 * with one that already has a sandbox adopts it, and `resumeSession` (present
 * only when the runtime has `findByLabels`) finds it again from another
 * process. With no snapshots in the port, `onFirstCreate` runs right after a
 * fresh launch; a failure there destroys the sandbox. No I/O until asked.
 */
export function createHarnessSandboxProvider<H extends SandboxHandle>(
  options: HarnessSandboxProviderOptions<H>,
): HarnessV1SandboxProvider {
  checkBridgeOptions(options, HARNESS_PROVIDER_OPTION_KEYS, "createHarnessSandboxProvider options");
  const { runtime } = options;
  const ports = options.launch?.ports ?? [];
  const contextOf = (handle: H) =>
    sessionContext({
      runtime,
      handle,
      ...(options.workingDirectory === undefined ? {} : { workingDirectory: options.workingDirectory }),
      ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
    });
  const wrap = (handle: H) => networkSession(contextOf(handle), ports);

  const findSession = async (sessionId: string, abortSignal?: AbortSignal): Promise<H | undefined> => {
    if (!runtime.findByLabels) return undefined;
    const [found] = await runtime.findByLabels({ [SESSION_LABEL]: sessionId }, opOptions(abortSignal));
    return found;
  };

  const createSession = async (create: CreateOptions = {}): Promise<HarnessV1NetworkSandboxSession> => {
    const { sessionId, abortSignal, identity, onFirstCreate } = create;
    const existing = sessionId === undefined ? undefined : await findSession(sessionId, abortSignal);
    if (existing) return wrap(existing);
    const labels: Labels = {
      ...options.launch?.labels,
      ...(sessionId === undefined ? {} : { [SESSION_LABEL]: sessionId }),
      ...(identity === undefined ? {} : { [IDENTITY_LABEL]: identity }),
    };
    const handle = await runtime.launch({ ...options.launch, labels }, opOptions(abortSignal));
    if (onFirstCreate) {
      try {
        await onFirstCreate(sessionOf(contextOf(handle)), abortSignal === undefined ? {} : { abortSignal });
      } catch (error) {
        await runtime.destroy(handle).catch(() => {});
        throw error;
      }
    }
    return wrap(handle);
  };

  const resumeSession = async ({ sessionId, abortSignal }: { sessionId: string; abortSignal?: AbortSignal }) => {
    const found = await findSession(sessionId, abortSignal);
    if (!found) {
      throw new SandportError({
        code: "NOT_FOUND",
        provider: runtime.provider,
        message: `no ${runtime.provider} sandbox carries the harness session id ${JSON.stringify(sessionId)}`,
        details: { sessionId },
      });
    }
    return wrap(found);
  };

  return {
    specificationVersion: "harness-sandbox-v1",
    providerId: options.providerId ?? `sandport-${runtime.provider}`,
    createSession,
    ...(runtime.findByLabels ? { resumeSession } : {}),
  };
}
