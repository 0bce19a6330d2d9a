import { type ExecResult, exitStatus } from "@sandport/core";

/** Output gathered from a command: in arrival order, and per stream. */
export interface CommandOutput {
  readonly output: string;
  readonly stdout: string;
  readonly stderr: string;
}

/** How a command's report to the model ends: still running, exited, or killed. */
export type CommandEnding =
  | { readonly running: true; readonly sessionId: number }
  | { readonly running: false; readonly result: ExecResult };

/** Characters per token the token budget is counted in (the framework's tools count the same way: roughly). */
const CHARACTERS_PER_TOKEN = 4;

/** The line a running command's report starts with when output nobody read was dropped (see `BoundedText`). */
const DROPPED_NOTICE = /^\[\.\.\.\d+ characters truncated from process output\.\.\.\]\n/;

/**
 * Keeps at most `maxOutputTokens` tokens (counted as 4 characters each) of
 * `text`: its head and its tail around a marker. A leading notice of dropped
 * output is kept whole when it fits the budget, as the framework's own
 * truncation keeps it, so the model still learns that output was lost.
 * Returns the original token count when something was cut.
 */
export function truncateToTokens(
  text: string,
  maxOutputTokens: number | undefined,
): { text: string; originalTokenCount?: number } {
  if (maxOutputTokens === undefined) return { text };
  const budget = maxOutputTokens * CHARACTERS_PER_TOKEN;
  if (text.length <= budget) return { text };
  const originalTokenCount = Math.ceil(text.length / CHARACTERS_PER_TOKEN);
  const found = DROPPED_NOTICE.exec(text)?.[0] ?? "";
  const notice = found.length <= budget ? found : "";
  const body = text.slice(notice.length);
  const bodyBudget = budget - notice.length;
  const head = body.slice(0, Math.floor(bodyBudget / 2));
  const tail = body.slice(body.length - Math.ceil(bodyBudget / 2));
  const cut = originalTokenCount - maxOutputTokens;
  return { text: `${notice}${head}\n…${cut} tokens truncated…\n${tail}`, originalTokenCount };
}

/**
 * The status line for the model. A Sandport result with `exitCode: null` (the
 * command was killed: timeout, output cap, Ctrl-C) is reported with the exit
 * status core's `exitStatus` gives it (124 or 137) and why it ended.
 */
function statusLine(ending: CommandEnding): string {
  if (ending.running) return `Process running with session ID ${ending.sessionId}`;
  const { result } = ending;
  const code = exitStatus(result);
  if (result.exitCode !== null) return `Process exited with code ${code}`;
  if (result.timedOut) return `Process exited with code ${code}: killed, it ran past its time limit`;
  if (result.truncated) return `Process exited with code ${code}: killed, its output passed the output cap`;
  return `Process exited with code ${code}: killed before it exited`;
}

/** The text `exec_command` and `write_stdin` return, in the layout of the framework's own sandboxes. */
export function formatReport(args: {
  readonly output: string;
  readonly wallTimeSeconds: number;
  readonly ending: CommandEnding;
  readonly originalTokenCount?: number;
  readonly chunkId: string;
}): string {
  const lines = [`Chunk ID: ${args.chunkId}`, `Wall time: ${args.wallTimeSeconds.toFixed(4)} seconds`];
  lines.push(statusLine(args.ending));
  if (args.originalTokenCount !== undefined) lines.push(`Original token count: ${args.originalTokenCount}`);
  lines.push("Output:", args.output);
  return lines.join("\n");
}
