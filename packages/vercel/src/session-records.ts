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
 * `mkdir` of it claims the session, `claim` holds the claimer's nonce, and
 * `command` the started command's id and timeout, or `lost` when its start's
 * answer was lost.
 *
 * @module
 */

/** What a claim found: this call may start the command, or the session already has one. */
export type SessionClaim = { readonly claimed: true } | { readonly claimed: false; readonly commandId: string };

/** What the record of a session holds when its start's outcome was lost. */
const LOST = "lost";

/**
 * Claims a session, or finds the command another start recorded for it
 * (waiting up to 10 s for a racing claimer). A claim whose answer was lost is
 * asked once more: it carries this call's nonce, so it recognises itself. A
 * session whose start was lost is refused (`UNEXPECTED`).
 */
export async function claimSession(
  sandbox: VercelSandbox,
  options: ResolvedOptions,
  name: string,
  sessionId: string,
  call: OperationCall,
): Promise<SessionClaim> {
  const script = ["sh", "-c", claimScript(options, sessionId, randomUUID())];
  const claim = () => runScript(sandbox, script, options.workspaceRoot, call);
  const result = await claim().catch((error: unknown) => {
    const lost = SandportError.isInstance(error) && error.details.outcomeUnknown === true;
    if (call.signal.aborted || !lost) throw error;
    return claim();
  });
  const line = result.exitCode === 0 ? result.stdout.trim() : "";
  if (line === "claimed") return { claimed: true };
  if (!line.startsWith("exists ")) throw unclaimed(name, sessionId, result);
  const commandId = line.slice("exists ".length);
  if (commandId === LOST) throw lostSession(name, sessionId);
  return { claimed: false, commandId };
}

/** Records the command a claimed session started, and its timeout (read back by {@link recordedTimeoutMs}). */
export function recordStart(
  sandbox: VercelSandbox,
  options: ResolvedOptions,
  sessionId: string,
  started: { readonly cmdId: string; readonly timeoutMs: number },
  timing: { readonly signal: AbortSignal },
): Promise<void> {
  return write(sandbox, options, sessionId, `${started.cmdId}\n${started.timeoutMs}\n`, timing);
}

/** Records that a claimed session's start may have run unseen: later starts are refused. Best effort. */
export async function recordLost(
  sandbox: VercelSandbox,
  options: ResolvedOptions,
  sessionId: string,
  timing: { readonly signal: AbortSignal },
): Promise<void> {
  await write(sandbox, options, sessionId, `${LOST}\n`, timing).catch(() => undefined);
}

/** Frees a claimed session whose start ran nothing, for the next start. Best effort. */
export async function releaseSession(
  sandbox: VercelSandbox,
  options: ResolvedOptions,
  sessionId: string,
  call: OperationCall,
): Promise<void> {
  const directory = `${options.sessionDirectory}/${sessionId}`;
  await runScript(sandbox, ["rm", "-rf", "--", directory], options.workspaceRoot, call).catch(() => undefined);
}

/** The timeout recorded for command `cmdId` of a session; `undefined` when the record names another. */
export async function recordedTimeoutMs(
  sandbox: VercelSandbox,
  options: ResolvedOptions,
  sessionId: string,
  cmdId: string,
  timing: { readonly signal: AbortSignal },
): Promise<number | undefined> {
  const bytes = await sandbox.readFileToBuffer({ path: recordPath(options, sessionId) }, { signal: timing.signal });
  const [recorded, timeout] = new TextDecoder().decode(bytes ?? new Uint8Array()).split("\n");
  const timeoutMs = Number(timeout);
  return recorded === cmdId && timeout !== "" && Number.isFinite(timeoutMs) ? timeoutMs : undefined;
}

function write(
  sandbox: VercelSandbox,
  options: ResolvedOptions,
  sessionId: string,
  text: string,
  timing: { readonly signal: AbortSignal },
): Promise<void> {
  const content = new TextEncoder().encode(text);
  return sandbox.writeFiles([{ path: recordPath(options, sessionId), content }], { signal: timing.signal });
}

function recordPath(options: ResolvedOptions, sessionId: string): string {
  return `${options.sessionDirectory}/${sessionId}/command`;
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
