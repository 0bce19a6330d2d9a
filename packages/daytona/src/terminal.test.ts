// openTerminal through the real Daytona SDKs (0.218: create-connect over one WebSocket; 0.180:
// create, then connect) against the Daytona emulator: what goes over the wire, that the shell
// createPty starts never shows, and how budgets and kills reach the program.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Terminal, TerminalEvent } from "@sandport/core";
import { expectCode, waitFor } from "@sandport/testkit/assertions";
import { emulated, SDKS } from "../test/emulated.js";

async function drain(terminal: Terminal): Promise<{ text: string; exited: TerminalEvent | undefined }> {
  const chunks: Uint8Array[] = [];
  let exited: TerminalEvent | undefined;
  for await (const event of terminal.events) {
    if (event.type === "output") chunks.push(event.bytes);
    else exited = event;
  }
  return { text: Buffer.concat(chunks).toString("utf8"), exited };
}

/** Reads until the output so far matches `wanted`; the iterator stays usable. */
async function until(iterator: AsyncIterator<TerminalEvent>, wanted: RegExp): Promise<string> {
  let text = "";
  while (!wanted.test(text)) {
    const next = await iterator.next();
    assert.ok(
      !next.done && next.value.type === "output",
      `the terminal ended before ${wanted}: ${JSON.stringify(text)}`,
    );
    text += Buffer.from(next.value.bytes).toString("utf8");
  }
  return text;
}

for (const sdk of SDKS) {
  describe(`openTerminal with ${sdk.label}`, async () => {
    const { emulator, runtime } = await emulated({ owner: "terminal-tests" }, sdk);
    const handle = await runtime.launch();
    const ptyRoutes = () =>
      emulator.requests.map((request) => request.route).filter((route) => route.includes("/process/pty"));

    test("one PTY session and one typed line; the events are the program's bytes only, then its exit", async () => {
      emulator.resetRequests();
      const terminal = await runtime.openTerminal(handle, { shell: "printf 'only this'; exit 5", cols: 100, rows: 30 });
      const { text, exited } = await drain(terminal);
      assert.equal(text, "only this", "no banner, prompt or echo of the shell before the program");
      assert.equal(exited?.type === "exited" && exited.exitCode, 5);
      const expected =
        sdk === SDKS[0]
          ? ["GET /toolbox/:id/process/pty/create-connect"]
          : ["POST /toolbox/:id/process/pty", "GET /toolbox/:id/process/pty/:sessionId/connect"];
      assert.deepEqual(ptyRoutes(), expected, "the session is created and connected, nothing else");
    });

    test("the program sees the request's cwd and env, the terminal's size, and not the script's variable", async () => {
      await runtime.exec(handle, { argv: ["mkdir", "-p", "sub"] });
      const terminal = await runtime.openTerminal(handle, {
        shell:
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
          'printf "%s|%s|%s|%s|%s" "${PWD##*/}" "$GREETING" "$(stty size)" "$TERM" "$(printenv SANDPORT_TERMINAL_SCRIPT || echo unset)"',
        cwd: "sub",
        env: { GREETING: "hi" },
        cols: 90,
        rows: 20,
      });
      const { text } = await drain(terminal);
      assert.equal(text, "sub|hi|20 90|xterm-256color|unset");
    });

    test("a missing cwd is NOT_FOUND before any PTY session; cols past the daemon's 999 are INVALID_REQUEST", async () => {
      emulator.resetRequests();
      await expectCode(
        () => runtime.openTerminal(handle, { argv: ["true"], cwd: "/tmp/no-such-dir" }),
        "NOT_FOUND",
        "a missing cwd",
      );
      await expectCode(
        () => runtime.openTerminal(handle, { argv: ["true"], cols: 1000 }),
        "INVALID_REQUEST",
        "cols 1000",
      );
      assert.deepEqual(ptyRoutes(), [], "no session was created");
    });

    test("the run budget deletes the session, which kills the program's background children too", async () => {
      const terminal = await runtime.openTerminal(handle, {
        shell: "sleep 300 & echo child=$!; wait",
        timeoutMs: 1_500,
      });
      const iterator = terminal.events[Symbol.asyncIterator]();
      const child = /child=(\d+)/.exec(await until(iterator, /child=\d+\r\n/))?.[1];
      let exited: TerminalEvent | undefined;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) exited = next.value;
      assert.deepEqual(
        exited?.type === "exited" && [exited.exitCode, exited.signal, exited.timedOut, exited.truncated],
        [null, null, true, false],
      );
      assert.ok(ptyRoutes().includes("DELETE /toolbox/:id/process/pty/:sessionId"), "the budget deleted the session");
      // On the emulator's unisolated backend the child is swept by its marker just after the exit is reported;
      // under bubblewrap it dies with the PID namespace at once. Either way it must go.
      await waitFor(
        async () => {
          const alive = await runtime.exec(handle, {
            shell: `kill -0 ${child} 2>/dev/null && echo alive || echo gone`,
          });
          return alive.stdout.trim() === "gone";
        },
        { what: "the program's background child to die with the session" },
      );
    });

    test("the output cap keeps exactly maxOutputBytes and kills the program: truncated", async () => {
      const terminal = await runtime.openTerminal(handle, { shell: "yes", maxOutputBytes: 1000 });
      const { text, exited } = await drain(terminal);
      assert.equal(Buffer.byteLength(text), 1000);
      assert.deepEqual(exited?.type === "exited" && [exited.exitCode, exited.truncated, exited.timedOut], [
        null,
        true,
        false,
      ]);
    });

    test("kill('SIGTERM') reaches the program's process group (a trap sees it); kill() ends it; a write after the end is NOT_FOUND", async () => {
      const terminal = await runtime.openTerminal(handle, {
        shell: "trap 'echo got-term' TERM; echo rea''dy; while :; do sleep 0.1; done",
      });
      const iterator = terminal.events[Symbol.asyncIterator]();
      await until(iterator, /ready/);
      await terminal.kill("SIGTERM");
      await until(iterator, /got-term/);
      await terminal.kill();
      let exited: TerminalEvent | undefined;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) exited = next.value;
      assert.deepEqual(exited?.type === "exited" && [exited.exitCode, exited.signal, exited.timedOut], [
        null,
        null,
        false,
      ]);
      await expectCode(() => terminal.write("late"), "NOT_FOUND", "a write after the end");
      await expectCode(() => terminal.resize(10, 10), "NOT_FOUND", "a resize after the end");
    });
  });
}
