import { randomUUID } from "node:crypto";
import { posix } from "node:path";
import { type ExecResult, quoteShellArg, SandportError } from "@sandport/core";
import type { OperationCall } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";
import type { VercelSandbox } from "./internal/sdk-types.js";
import type { ResolvedOptions } from "./options.js";
import { runScript } from "./run-script.js";

/**
 * The records that make `startCommand` idempotent on its session id. Vercel
 * commands have no caller-chosen key, so each session gets a directory
 * inside the sandbox, beside the workspace (`<sessionDirectory>/<session id>`):
 * `mkdir` of it claims the session, `claim` holds the claimer's nonce,
 * `command` the started command's id, timeout and output cap, or `lost` when
 * its start's answer was lost, and `capped` is the mark the command's output
 * cap leaves when it stopped it.
 *
 * @module
 */

/** What a claim found: this call may start the command, or the session already has one. */
export type SessionClaim = { readonly claimed: true } | { readonly claimed: false; readonly commandId: string };

/** What the record of a session holds when its start's outcome was lost. */
const LOST = "lost";

/** What a session's start recorded about its command. */
export interface RecordedCommand {
  readonly timeoutMs: number;
  /** The command's output cap; `undefined` in a record written before caps were recorded. */
  readonly maxOutputBytes: number | undefined;
}

/** The records of one session in one sandbox. */
export class SessionRecords {
  readonly #sandbox: VercelSandbox;
  readonly #options: ResolvedOptions;
  readonly #sessionId: string;
  readonly #path: string;

  constructor(sandbox: VercelSandbox, options: ResolvedOptions, sessionId: string) {
    this.#sandbox = sandbox;
    this.#options = options;
    this.#sessionId = sessionId;
    this.#path = `${options.sessionDirectory}/${sessionId}/command`;
  }

  /**
   * Claims the session, or finds the command another start recorded for it
   * (waiting up to 10 s for a racing claimer). A claim whose answer was lost
   * is asked once more: it carries this call's nonce, so it recognises
   * itself. A session whose start was lost is refused (`UNEXPECTED`).
   */
  async claim(call: OperationCall): Promise<SessionClaim> {
    const script = ["sh", "-c", claimScript(this.#options, this.#sessionId, randomUUID())];
    const claim = () => runScript(this.#sandbox, script, this.#options, call);
    const result = await claim().catch((error: unknown) => {
      const lost = SandportError.isInstance(error) && error.details.outcomeUnknown === true;
      if (call.signal.aborted || !lost) throw error;
      return claim();
    });
    const line = result.exitCode === 0 ? result.stdout.trim() : "";
    if (line === "claimed") return { claimed: true };
    if (!line.startsWith("exists ")) throw unclaimed(this.#sandbox.name, this.#sessionId, result);
    const commandId = line.slice("exists ".length);
    if (commandId === LOST) throw lostSession(this.#sandbox.name, this.#sessionId);
    return { claimed: false, commandId };
  }

  /** Where the output cap of session `sessionId`'s command leaves its mark (absolute). */
  static capMarkOf(options: ResolvedOptions, sessionId: string): string {
    return `${options.sessionDirectory}/${sessionId}/capped`;
  }

  /** Records the command a claimed session started, its timeout and output cap (read back by {@link recorded}). */
  recordStart(
    cmdId: string,
    plan: { readonly timeoutMs: number; readonly maxOutputBytes: number },
    signal: AbortSignal,
  ): Promise<void> {
    return this.#write(`${cmdId}\n${plan.timeoutMs}\n${plan.maxOutputBytes}\n`, signal);
  }

  /** Records that a claimed session's start may have run unseen: later starts are refused. Best effort. */
  async recordLost(signal: AbortSignal): Promise<void> {
    await this.#write(`${LOST}\n`, signal).catch(() => undefined);
  }

  /** Frees a claimed session whose start ran nothing, for the next start. Best effort. */
  async release(call: OperationCall): Promise<void> {
    const directory = posix.relative(
      this.#options.workspaceRoot,
      `${this.#options.sessionDirectory}/${this.#sessionId}`,
    );
    await runScript(this.#sandbox, ["rm", "-rf", "--", directory], this.#options, call).catch(() => undefined);
  }

  /** What was recorded for command `cmdId` of the session; `undefined` when the record names another. */
  async recorded(cmdId: string, signal: AbortSignal): Promise<RecordedCommand | undefined> {
    const bytes = await this.#sandbox.readFileToBuffer({ path: this.#path }, { signal });
    const [recorded, timeout, cap] = new TextDecoder().decode(bytes ?? new Uint8Array()).split("\n");
    const timeoutMs = Number(timeout);
    if (recorded !== cmdId || timeout === "" || !Number.isFinite(timeoutMs)) return undefined;
    const maxOutputBytes = Number(cap);
    return {
      timeoutMs,
      maxOutputBytes: Number.isInteger(maxOutputBytes) && maxOutputBytes > 0 ? maxOutputBytes : undefined,
    };
  }

  /** Whether the command's output cap stopped it (its mark is there). */
  async capped(signal: AbortSignal): Promise<boolean> {
    const path = SessionRecords.capMarkOf(this.#options, this.#sessionId);
    return (await this.#sandbox.readFileToBuffer({ path }, { signal })) !== null;
  }

  #write(text: string, signal: AbortSignal): Promise<void> {
    const content = new TextEncoder().encode(text);
    return this.#sandbox.writeFiles([{ path: this.#path, content }], { signal });
  }
}

/**
 * Claims the session (`mkdir` of its directory, relative to the workspace,
 * then this call's `nonce` in it) and prints `claimed`; when the directory
 * exists, waits (up to 10 s) for the claimer's record and prints `exists
 * <command id>`, else `pending`. A claim holding the same nonce is this
 * call's own, repeated: `claimed` again.
 */
function claimScript(options: ResolvedOptions, sessionId: string, nonce: string): string {
  const directory = quoteShellArg(posix.relative(options.workspaceRoot, `${options.sessionDirectory}/${sessionId}`));
  return [
    `d=${directory}`,
    `mkdir -p -- "$(dirname -- "$d")" || exit 1`,
    `if mkdir -- "$d" 2>/dev/null; then echo ${nonce} > "$d/claim"; echo claimed; exit 0; fi`,
    `i=0; while [ ! -s "$d/command" ] && [ $i -lt 200 ]; do`,
    `  [ "$(cat "$d/claim" 2>/dev/null)" = ${nonce} ] && { echo claimed; exit 0; }`,
    "  sleep 0.05; i=$((i+1))",
    "done",
    `if [ -s "$d/command" ]; then echo "exists $(head -n 1 "$d/command")"; else echo pending; fi`,
  ].join("\n");
}

function unclaimed(name: string, sessionId: string, claim: ExecResult): SandportError {
  const pending = claim.stdout.trim() === "pending";
  const why = claim.stderr.trim() || `exit ${claim.exitCode}`;
  return new SandportError({
    code: pending ? "PROVIDER_UNAVAILABLE" : "UNEXPECTED",
    provider: PROVIDER,
    retryable: pending,
    message: pending
      ? `session ${sessionId} in sandbox ${name} is claimed, but its command was not recorded within 10 s`
      : `vercel could not claim session ${sessionId} in sandbox ${name}: ${why}`,
    details: { sandboxId: name, sessionId },
  });
}

function lostSession(name: string, sessionId: string): SandportError {
  return new SandportError({
    code: "UNEXPECTED",
    provider: PROVIDER,
    retryable: false,
    message: `the start of session ${sessionId} in sandbox ${name} lost its answer, so its command may have run; it is never started again: use another session id`,
    details: { sandboxId: name, sessionId, outcomeUnknown: true },
  });
}
