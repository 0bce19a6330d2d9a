import { createHash } from "node:crypto";
import {
  invalidRequest,
  type LaunchSpec,
  type OpOptions,
  quoteShellArg,
  SandportError,
  unsupported,
} from "@sandport/core";
import { createCallBudget, launchWithReclaim, networkEnabled, type OperationCall } from "@sandport/core/adapter";
import { agentCoreCapabilities } from "./capabilities.js";
import { type AgentCoreContext, envPath, labelsPath } from "./context.js";
import { mapAgentCoreError } from "./errors.js";
import { type AgentCoreHandle, PROVIDER } from "./handle.js";
import { signalOf } from "./invoke.js";
import { stopSession } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import { fromWorkingDirectory, MAX_LIFETIME_MS, type ResolvedOptions } from "./options.js";
import { keyedSessionName, labelsFile, sessionName } from "./ownership.js";
import { runScript } from "./run-script.js";

/** What a launch sends: the Start request's fields, and the setup script. */
interface LaunchPlan {
  readonly name: string;
  readonly clientToken: string;
  readonly sessionTimeoutSeconds: number;
  /** The setup command; absent for a launch without labels or env whose name carries its launch key. */
  readonly setup: string | undefined;
}

/**
 * Starts a session whose `name` carries the ownership digests (see
 * `ownership.ts`), with a `clientToken` derived from the owner and the launch
 * key (a repeat of the Start, by the SDK's retries or a caller retrying with
 * the same key, answers the same session) and `sessionTimeoutSeconds` from the
 * launch's lifetime (always sent; 1-28 800 s, refused otherwise before any
 * request). A launch without labels or env is that one request: its name
 * carries the launch key (`keyedSessionName`), which with the owner is all
 * its labels, and the workspace is made by the first command or file call
 * that needs it. Any other launch (or one whose key does not fit the name)
 * then sends one `executeCommand` that creates the workspace and the state
 * directory and writes the labels file and the launch env there.
 *
 * The Start is not cancelled when the caller gives up (the call still rejects
 * at once): whatever it made is stopped in the background (`launchWithReclaim`;
 * `settle()` waits for it), as is a session whose setup failed. A Start with an
 * unknown outcome is searched for by launch key in the background.
 */
export function launch(context: AgentCoreContext, spec?: LaunchSpec, op?: OpOptions): Promise<AgentCoreHandle> {
  const { options } = context;
  return launchWithReclaim(context, spec, op, {
    networkPolicy: agentCoreCapabilities.modes.networkPolicy,
    plan: (valid, launchKey): LaunchPlan => {
      if (valid.resources !== undefined) {
        throw unsupported(PROVIDER, "resource limits", "every session is a microVM of 2 vCPU and 8 GB, not adjustable");
      }
      if (valid.ports !== undefined && valid.ports.length > 0) {
        throw unsupported(PROVIDER, "declared ports", "a Code Interpreter session publishes no ports");
      }
      if (valid.template !== undefined) {
        throw unsupported(
          PROVIDER,
          "templates",
          "a session runs the code interpreter's image: choose it with codeInterpreterId",
        );
      }
      if (networkEnabled(valid.network, options.network, PROVIDER) !== options.network) {
        throw unsupported(
          PROVIDER,
          `network: ${JSON.stringify(valid.network)} per launch`,
          "the network mode belongs to the code interpreter (CreateCodeInterpreter's networkConfiguration); the runtime's network option says which it has",
        );
      }
      const lifetimeMs = valid.lifetimeMs ?? options.lifetimeMs;
      if (lifetimeMs > MAX_LIFETIME_MS) {
        throw invalidRequest(
          `lifetimeMs must be at most ${MAX_LIFETIME_MS} on AgentCore (sessionTimeoutSeconds 28800)`,
          {
            field: "lifetimeMs",
          },
        );
      }
      const bare = Object.keys(valid.labels ?? {}).length === 0 && Object.keys(valid.env ?? {}).length === 0;
      const keyed = bare ? keyedSessionName(options.owner, launchKey) : undefined;
      return {
        name: keyed ?? sessionName(options.owner, valid.labels, launchKey),
        clientToken: createHash("sha256").update(`${options.owner}\n${launchKey}`).digest("hex"),
        sessionTimeoutSeconds: Math.max(1, Math.ceil(lifetimeMs / 1000)),
        setup:
          keyed === undefined
            ? setupScript(options, labelsFile(options.owner, valid.labels, launchKey), valid.env)
            : undefined,
      };
    },
    load: async () => ({ sdk: await context.sdk(), clients: await context.clients() }),
    // Not bound to the caller: a Start already sent is followed to its end for as long as the cleanup may take.
    create: ({ sdk, clients }, { plan }) =>
      clients.safe.send(
        new sdk.StartCodeInterpreterSessionCommand({
          codeInterpreterIdentifier: options.codeInterpreterId,
          name: plan.name,
          sessionTimeoutSeconds: plan.sessionTimeoutSeconds,
          clientToken: plan.clientToken,
        }),
        { abortSignal: signalOf(createCallBudget(options.orphanCleanupMs)) },
      ),
    idOf: (started) => started.sessionId as string,
    setup: async (started, { plan, labels }, call) => {
      const sessionId = started.sessionId as string;
      if (plan.setup !== undefined) await runSetup(context, sessionId, plan.setup, call);
      return {
        id: sessionId,
        provider: PROVIDER,
        labels,
        ...(started.createdAt instanceof Date ? { createdAt: started.createdAt.toISOString() } : {}),
      };
    },
    destroy: (sessionId, budget) => stopSession(context, sessionId, budget),
    findByLaunchKey: (key, budget) => findByLaunchKey(context, key, budget),
  });
}

/**
 * The setup command of a launch with labels or env: the workspace and state directories, the labels
 * file, and (when the launch has an env) the env file as `export NAME='value'`
 * lines every command sources first, both mode 0600. `printf` is the shell's
 * builtin, so no argument-size limit applies.
 */
function setupScript(
  options: ResolvedOptions,
  labels: string,
  env: Readonly<Record<string, string>> | undefined,
): string {
  const path = (absolute: string) => quoteShellArg(fromWorkingDirectory(options, absolute));
  const lines = Object.entries(env ?? {}).map(([name, value]) => `export ${name}=${quoteShellArg(value)}\n`);
  return [
    `mkdir -p -- ${path(options.workspaceRoot)} ${path(options.stateDirectory)}`,
    "umask 077",
    `printf '%s' ${quoteShellArg(labels)} > ${path(labelsPath(options))}`,
    lines.length === 0
      ? `rm -f -- ${path(envPath(options))}`
      : `printf '%s' ${quoteShellArg(lines.join(""))} > ${path(envPath(options))}`,
  ].join(" && ");
}

async function runSetup(
  context: AgentCoreContext,
  sessionId: string,
  script: string,
  call: OperationCall,
): Promise<void> {
  const result = await runScript(context, sessionId, script, call).catch((error: unknown) => {
    throw mapAgentCoreError(error, { operation: "launch", sandboxId: sessionId });
  });
  if (result.exitCode === 0) return;
  throw new SandportError({
    code: "UNEXPECTED",
    provider: PROVIDER,
    retryable: false,
    message: `agentcore session ${sessionId} could not be set up (workspace, labels, launch env): ${result.stderr.trim() || `exit ${result.exitCode}`}`,
    details: { sandboxId: sessionId, exitCode: result.exitCode },
  });
}
