import type { Labels, SandportError } from "@sandport/core";
import { AdapterContext, type CallBudget, whenAbsent } from "@sandport/core/adapter";
import { isNotFound, mapAgentCoreError } from "./errors.js";
import { PROVIDER, sessionIdOf, validSessionId } from "./handle.js";
import { type PinnedClients, pinnedClients } from "./internal/pinned-client.js";
import { type AgentCoreSdkSource, createAgentCoreSdkLoader } from "./internal/sdk.js";
import type { AgentCoreSdkModule } from "./internal/sdk-types.js";
import { invokeTool, signalOf } from "./invoke.js";
import { fromWorkingDirectory, type ResolvedOptions } from "./options.js";
import { labelsFromName, readLabelsFile, readName } from "./ownership.js";

/** What this adapter knows of a `READY` session: its record, and its labels when the name says it is ours. */
export interface SessionInfo {
  readonly sessionId: string;
  readonly name: string | undefined;
  readonly createdAt: Date | undefined;
  /** The labels file's content (owner and launch key included); absent for a session that is not ours. */
  readonly labels: Labels | undefined;
}

/**
 * Per-runtime state shared by the operations: the kit's `AdapterContext`
 * (call frame, ownership, known sessions, background cleanup) with
 * AgentCore's primitives: `describe` (Get, and the labels file of a session
 * whose name is ours), `labelsOf`, and the runtime's two pinned clients.
 * Not exported from the package.
 */
export class AgentCoreContext extends AdapterContext<ResolvedOptions, AgentCoreSdkModule, SessionInfo> {
  #clients: Promise<PinnedClients> | undefined;

  constructor(options: ResolvedOptions, sdk?: AgentCoreSdkSource, onBackgroundError?: (error: SandportError) => void) {
    super({
      provider: PROVIDER,
      options,
      sdk: createAgentCoreSdkLoader(sdk),
      mapError: mapAgentCoreError,
      sandboxIdOf: sessionIdOf,
      onBackgroundError,
    });
  }

  /** The runtime's clients, built once (no request). */
  clients(): Promise<PinnedClients> {
    this.#clients ??= this.sdk().then((sdk) => pinnedClients(sdk, this.options));
    this.#clients.catch(() => {
      this.#clients = undefined;
    });
    return this.#clients;
  }

  /**
   * A `READY` session's record and, when its name is ours, its labels file;
   * `undefined` when the session is unknown or terminated.
   */
  async describe(sessionId: string, _operation: string, budget: CallBudget): Promise<SessionInfo | undefined> {
    validSessionId(sessionId);
    const sdk = await this.sdk();
    const { safe } = await this.clients();
    const command = new sdk.GetCodeInterpreterSessionCommand({
      codeInterpreterIdentifier: this.options.codeInterpreterId,
      sessionId,
    });
    const found = await safe.send(command, { abortSignal: signalOf(budget) }).catch(whenAbsent(isNotFound, undefined));
    if (found === undefined || found.status !== "READY") return undefined;
    return this.withLabels({ sessionId, name: found.name, createdAt: found.createdAt }, budget);
  }

  /** The stored labels, owner and launch key included (`undefined`: not ours). */
  labelsOf(info: SessionInfo): Readonly<Record<string, string>> | undefined {
    return info.labels;
  }

  /**
   * `record` with the labels its labels file holds, read when the name is one
   * of ours; a missing or disagreeing file leaves the session foreign. A name
   * that carries its launch key gives the labels itself (no file).
   */
  async withLabels(record: Omit<SessionInfo, "labels">, budget: CallBudget): Promise<SessionInfo | undefined> {
    const marks = readName(record.name);
    if (marks === undefined) return { ...record, labels: undefined };
    // A launch without labels or env is named with its launch key: the name says it all, no file was written.
    if (marks.key !== undefined) return { ...record, labels: labelsFromName(marks, this.options.owner) };
    const path = toolPath(fromWorkingDirectory(this.options, labelsPath(this.options)));
    let result: Awaited<ReturnType<typeof invokeTool>>;
    try {
      result = await invokeTool(
        this,
        record.sessionId,
        { name: "readFiles", arguments: { paths: [path] } },
        budget,
        true,
      );
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    const text = result.isError ? undefined : fileText(result);
    const labels = text === undefined ? undefined : readLabelsFile(text, marks);
    return { ...record, labels };
  }
}

/** The labels file of every session: in the state directory. */
export function labelsPath(options: ResolvedOptions): string {
  return `${options.stateDirectory}/labels.json`;
}

/** The launch env file (`export NAME='value'` lines), sourced by every command. */
export function envPath(options: ResolvedOptions): string {
  return `${options.stateDirectory}/env`;
}

/** A path as the file tools take it: relative to the working directory, without a leading `./`. */
export function toolPath(relative: string): string {
  return relative.startsWith("./") ? relative.slice(2) : relative;
}

/** The bytes of the first file in a `readFiles` result (`blob`, or `text` as UTF-8). */
export function fileBytes(result: Awaited<ReturnType<typeof invokeTool>>): Uint8Array | undefined {
  for (const block of result.content ?? []) {
    const resource = block.resource;
    if (resource?.blob !== undefined) return resource.blob;
    if (resource?.text !== undefined) return new TextEncoder().encode(resource.text);
  }
  return undefined;
}

function fileText(result: Awaited<ReturnType<typeof invokeTool>>): string | undefined {
  const bytes = fileBytes(result);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}
