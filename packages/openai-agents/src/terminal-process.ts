import { constants } from "node:os";
import type { ExecEvent, ExecResult, SandboxProcess, Terminal } from "@sandport/core";

/**
 * A terminal (`openTerminal`) seen as a spawned process, so that a `tty: true`
 * command is polled and written to as any other: the terminal's bytes are its
 * stdout (a terminal merges both streams), typed `chars` go to the terminal
 * unchanged (so Ctrl-C reaches the foreground job as a signal), and a program
 * that a signal ended reports 128 plus its number, as a shell would.
 */
export function terminalProcess(terminal: Terminal): SandboxProcess {
  let settle: (result: ExecResult) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  const result = new Promise<ExecResult>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  result.catch(() => {});
  async function* events(): AsyncGenerator<ExecEvent> {
    const decoder = new TextDecoder();
    let stdout = "";
    try {
      yield { type: "started" };
      for await (const event of terminal.events) {
        if (event.type === "output") {
          const data = decoder.decode(event.bytes, { stream: true });
          stdout += data;
          yield { type: "stdout", data, bytes: event.bytes };
          continue;
        }
        const signalled = event.signal === null ? undefined : constants.signals[event.signal as NodeJS.Signals];
        const ended: ExecResult = {
          exitCode: event.exitCode ?? (signalled === undefined ? null : 128 + signalled),
          stdout,
          stderr: "",
          truncated: event.truncated,
          timedOut: event.timedOut,
          durationMs: event.durationMs,
        };
        settle(ended);
        yield { type: "exited", result: ended };
      }
    } catch (error) {
      fail(error);
      throw error;
    }
  }
  return {
    events: events(),
    result,
    write: (data) => terminal.write(data),
    // End of file on a terminal is Ctrl-D at the start of a line.
    closeStdin: () => terminal.write("\u0004").catch(() => {}),
    kill: () => terminal.kill(),
  };
}
