import { SandportError, type ValidatedExecRequest, type ValidatedTerminalRequest } from "@sandport/core";
import { LocalTerminal } from "../commands/local-terminal.js";
import type { RunOutcome } from "../commands/process-runner.js";
import { type HelperStatus, readHelperStatus, terminalCommand } from "../commands/terminal-helper.js";
import { LOCAL_PROVIDER } from "../options.js";
import { type CommandRuns, toLocalError } from "./command-runs.js";

/**
 * Opens a terminal in sandbox `id`: runs the terminal helper (see
 * `TERMINAL_HELPER_SOURCE`) as an ordinary command of the sandbox, so it has
 * the same isolation, run budget, output cap, tracking and `destroy` as
 * `exec`, and resolves once the helper says the program was forked. Aborting
 * `signal` before then, or `callerSignal` at any time, kills it.
 */
export async function openLocalTerminal(
  commands: CommandRuns,
  id: string,
  request: ValidatedTerminalRequest,
  signal: AbortSignal,
  callerSignal?: AbortSignal,
): Promise<LocalTerminal> {
  const kill = new AbortController();
  const killOnAbort = (from: AbortSignal) => {
    const listener = () => kill.abort(from.reason);
    if (from.aborted) listener();
    else from.addEventListener("abort", listener, { once: true });
    return () => from.removeEventListener("abort", listener);
  };
  const terminal = new LocalTerminal(kill);
  const stopStartWatch = killOnAbort(signal);
  if (callerSignal) killOnAbort(callerSignal);
  const { command } = request;
  const program = command.argv ? [...command.argv] : ["/bin/sh", "-c", command.shell as string];
  const helper = { ...command, argv: terminalCommand(request.size, program) } as ValidatedExecRequest;
  delete (helper as { shell?: string }).shell;

  let stderr = "";
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const running = commands
    .run(id, helper, kill.signal, {
      onOutput: (stream, chunk) => {
        if (stream === "stdout") return terminal.output(chunk);
        stderr += chunk.toString("utf8");
        if (readHelperStatus(stderr).statuses.some((status) => status.kind === "ready")) markReady();
      },
      onStdin: (input) => terminal.attachInput(input),
    })
    .then(
      (outcome) => {
        const statuses = readHelperStatus(outcome.stderr.toString("utf8")).statuses;
        if (!statuses.some((status) => status.kind === "ready")) return notOpened(outcome);
        terminal.finish(outcome, statuses.at(-1) as HelperStatus);
        return undefined;
      },
      (error: unknown) => {
        terminal.fail(toLocalError(error));
        return toLocalError(error);
      },
    );
  try {
    // Whichever comes first: the program runs, or the helper ended (a failure to open among the ways).
    const ended = await Promise.race([ready, running]);
    if (ended !== undefined) throw ended;
  } finally {
    stopStartWatch();
  }
  return terminal;
}

/** Why the helper ended before the program was forked: no Perl, no devpts, or stopped before it got there. */
function notOpened(outcome: RunOutcome): SandportError {
  const text = outcome.stderr.toString("utf8");
  const { statuses, other } = readHelperStatus(text);
  const failure = statuses.find((status) => status.kind === "fail");
  if (outcome.exitCode === 127 || outcome.exitCode === 126) {
    return new SandportError({
      code: "UNSUPPORTED",
      provider: LOCAL_PROVIDER,
      message: `a terminal needs Perl (Debian's perl-base) where commands run; ${other.join(" ").trim()}`,
      details: { feature: "openTerminal" },
    });
  }
  const reason = failure?.kind === "fail" ? failure.reason : other.join(" ").trim();
  const how = outcome.timedOut ? "its run budget ran out" : `exit ${outcome.exitCode ?? "by a signal"}`;
  return new SandportError({
    code: "UNEXPECTED",
    provider: LOCAL_PROVIDER,
    message: `could not open a terminal (${how})${reason === "" ? "" : `: ${reason}`}`,
  });
}
