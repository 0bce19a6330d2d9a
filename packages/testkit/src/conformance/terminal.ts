import assert from "node:assert/strict";
import type { SandboxHandle, Terminal, TerminalEvent, TerminalExitedEvent, TerminalRequest } from "@sandport/core";
import { expectCode, since } from "./assertions.js";
import type { CheckGroup } from "./suite.js";

/** Reads a terminal's events: the output so far as text (and bytes), and the exit once it came. */
class TerminalReader {
  readonly #iterator: AsyncIterator<TerminalEvent>;
  readonly #decoder = new TextDecoder();
  readonly #waitMs: number;
  #bytes: number[] = [];
  /** Everything the terminal showed so far, decoded as UTF-8. */
  text = "";
  /** The `exited` event, once it came. */
  exited: TerminalExitedEvent | undefined;

  constructor(terminal: Terminal, waitMs: number) {
    this.#iterator = terminal.events[Symbol.asyncIterator]();
    this.#waitMs = waitMs;
  }

  /** Every byte shown so far. */
  get bytes(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }

  /** Reads until the text after `from` matches `wanted`; fails when the events end or `waitMs` passes first. */
  async until(wanted: RegExp, from = 0): Promise<RegExpExecArray> {
    const deadline = Date.now() + this.#waitMs;
    for (;;) {
      const found = wanted.exec(this.text.slice(from));
      if (found) return found;
      assert.equal(
        this.exited,
        undefined,
        `the terminal ended before ${wanted} appeared (${JSON.stringify(this.text)})`,
      );
      await this.#next(deadline, `${wanted}`);
    }
  }

  /** Reads until `exited`, which it returns. */
  async end(waitMs = this.#waitMs): Promise<TerminalExitedEvent> {
    const deadline = Date.now() + waitMs;
    while (!this.exited) await this.#next(deadline, "the exit");
    return this.exited;
  }

  async #next(deadline: number, what: string): Promise<void> {
    const left = deadline - Date.now();
    assert.ok(left > 0, `no ${what} within the wait (got ${JSON.stringify(this.text)})`);
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([
      this.#iterator.next(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`waited for ${what}; got ${JSON.stringify(this.text)}`)), left);
      }),
    ]).finally(() => clearTimeout(timer));
    if (next.done) {
      assert.ok(this.exited, "the events ended without an exited event");
      return;
    }
    assert.equal(this.exited, undefined, "nothing comes after exited");
    if (next.value.type === "exited") this.exited = next.value;
    else {
      this.#bytes.push(...next.value.bytes);
      this.text += this.#decoder.decode(next.value.bytes, { stream: true });
    }
  }
}

/**
 * Registers the terminal checks (`openTerminal`): typing and echo, the window
 * size and SIGWINCH, Ctrl-C, the exit code, escape sequences byte for byte,
 * the run budget, and refused requests. Shell lines are written so that their
 * echo cannot be mistaken for their output (`rea%s` prints `ready`).
 */
export function declareTerminalChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const { promptMs } = suite.timeouts;
  const open = (request: TerminalRequest) => runtime.openTerminal!(group.sandbox(), request);

  group.check("terminal.echo", async () => {
    const terminal = await open({ argv: ["cat"] });
    const reader = new TerminalReader(terminal, promptMs);
    await terminal.write("hello é\n");
    // Once echoed by the terminal, once printed by cat; the terminal turns each \n into \r\n.
    await reader.until(/hello é\r\nhello é\r\n/);
    await terminal.write("\u0004");
    const exited = await reader.end();
    assert.equal(exited.exitCode, 0, "cat ends at the end of file Ctrl-D makes");
    await expectCode(() => terminal.write("late\n"), "NOT_FOUND", "a write to an ended terminal");
  });

  group.check("terminal.resize", async () => {
    const terminal = await open({ argv: ["sh", "-i"], cols: 80, rows: 24 });
    const reader = new TerminalReader(terminal, promptMs);
    await terminal.write("stty size; printf 'arm%sed\\n' ''\n");
    await reader.until(/24 80\r\n/);
    // The trap is armed before the resize: the foreground job gets SIGWINCH and says so.
    await terminal.write("trap 'printf \"win%s\\n\" ch' WINCH; printf 'trap%sset\\n' ''\n");
    await reader.until(/trapset/);
    const mark = reader.text.length;
    await terminal.resize(132, 43);
    await terminal.write("stty size\n");
    await reader.until(/winch/, mark);
    await reader.until(/43 132\r\n/, mark);
    await terminal.write("exit 0\n");
    assert.equal((await reader.end()).exitCode, 0);
  });

  group.check("terminal.ctrl-c", async () => {
    const terminal = await open({ argv: ["sh", "-i"] });
    const reader = new TerminalReader(terminal, promptMs);
    // Once `ready` shows, the job is the terminal's foreground job: Ctrl-C is for it, not the shell.
    await terminal.write("sh -c 'printf \"rea%s\\n\" dy; exec sleep 30'\n");
    await reader.until(/ready/);
    const interrupted = performance.now();
    await terminal.write("\u0003");
    await reader.until(/\^C/);
    await terminal.write("echo status=$?\n");
    await reader.until(/status=130/);
    assert.ok(since(interrupted) < promptMs, `the interrupt took ${since(interrupted)} ms`);
    await terminal.write("exit 0\n");
    assert.equal((await reader.end()).exitCode, 0, "the shell itself lives on after the interrupt");
  });

  group.check("terminal.exit-code", async () => {
    const terminal = await open({ shell: "printf 'bye'; exit 7", env: { GREETING: "x" } });
    const reader = new TerminalReader(terminal, promptMs);
    const exited = await reader.end();
    assert.equal(reader.text, "bye", "the output arrives before the exit");
    assert.deepEqual(
      { exitCode: exited.exitCode, signal: exited.signal, timedOut: exited.timedOut, truncated: exited.truncated },
      { exitCode: 7, signal: null, timedOut: false, truncated: false },
    );
    assert.ok(exited.durationMs >= 0);
  });

  group.check("terminal.full-screen", async () => {
    const screen =
      "\u001b[?1049h\u001b[2J\u001b[H\u001b[1;31mred\u001b[0m\u001b[10;5Hcell\u001b[K\u001b[?25l\u001b[?1049l";
    // printf's %b turns the escapes back into bytes inside; the script has no newline for the terminal to rewrite.
    const escaped = screen.replaceAll("\u001b", "\\033");
    const terminal = await open({ argv: ["sh", "-c", `printf '%b' '${escaped}'`] });
    const reader = new TerminalReader(terminal, promptMs);
    const exited = await reader.end();
    assert.equal(exited.exitCode, 0);
    assert.deepEqual(reader.bytes, new TextEncoder().encode(screen), "every escape sequence arrives intact");
  });

  group.check("terminal.timeout", async () => {
    const budget = suite.timeouts.commandTimeoutMs;
    const started = performance.now();
    const terminal = await open({ argv: ["sleep", "30"], timeoutMs: budget });
    const exited = await new TerminalReader(terminal, budget + promptMs).end();
    assert.equal(exited.timedOut, true, "the run budget ended it");
    assert.equal(exited.exitCode, null, "a terminal stopped by its budget has no exit code");
    assert.ok(since(started) < budget + promptMs, `the kill came after ${since(started)} ms`);
  });

  group.check("terminal.kill", async () => {
    const terminal = await open({ shell: "printf 'rea%s\\n' dy; exec sleep 30" });
    const reader = new TerminalReader(terminal, promptMs);
    await reader.until(/ready/);
    const refused = await terminal.kill("SIGTERM").then(
      () => undefined,
      (error: unknown) => error,
    );
    if (refused === undefined) {
      const exited = await reader.end();
      assert.equal(exited.signal, "SIGTERM", "sleep dies of the SIGTERM sent to it");
      assert.equal(exited.exitCode, null, "a program ended by a signal has no exit code");
    } else {
      // A provider that can only kill a terminal's program refuses other signals, typed, and sends nothing.
      await expectCode(() => Promise.reject(refused), "UNSUPPORTED", "kill('SIGTERM') where only SIGKILL exists");
      await terminal.write("echo still-running\n");
      await reader.until(/still-running/);
      await terminal.kill();
      const exited = await reader.end();
      assert.equal(exited.exitCode, null, "a killed program has no exit code");
      assert.equal(exited.timedOut, false, "killed, not timed out");
    }
    await terminal.kill();
    await expectCode(() => terminal.kill("SIGSTOP" as never), "INVALID_REQUEST", "a signal outside TERMINAL_SIGNALS");
  });

  group.check("terminal.abort", async () => {
    const controller = new AbortController();
    const terminal = await runtime.openTerminal!(
      group.sandbox(),
      { argv: ["sleep", "30"] },
      { signal: controller.signal },
    );
    const started = performance.now();
    controller.abort(new Error("the caller gave up"));
    const exited = await new TerminalReader(terminal, promptMs).end();
    assert.ok(since(started) < promptMs, `the abort took ${since(started)} ms`);
    assert.deepEqual(
      { exitCode: exited.exitCode, timedOut: exited.timedOut, truncated: exited.truncated },
      { exitCode: null, timedOut: false, truncated: false },
      "aborting op.signal after the start kills the terminal's program",
    );
  });

  group.check("terminal.invalid-requests", async () => {
    const handle = group.sandbox();
    for (const [what, request] of [
      ["cols 0", { argv: ["sh"], cols: 0 }],
      ["rows 1.5", { argv: ["sh"], rows: 1.5 }],
      ["an env name with a dash", { argv: ["sh"], env: { "NOT-A-NAME": "x" } }],
      ["stdin", { argv: ["sh"], stdin: "typed" }],
      ["both argv and shell", { argv: ["sh"], shell: "sh" }],
    ] as const) {
      await expectCode(() => runtime.openTerminal!(handle, request as TerminalRequest), "INVALID_REQUEST", what);
    }
    const terminal = await open({ argv: ["cat"] });
    await expectCode(() => terminal.resize(0, 10), "INVALID_REQUEST", "a resize to 0 columns");
    await terminal.kill();
  });
}
