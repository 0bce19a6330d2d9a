// openTerminal through the real e2b SDK against the E2B emulator: what goes over the wire, that the
// shell `pty.create` starts never shows, and what envd cannot do with a terminal.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Terminal, TerminalEvent } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const START = "rpc process.Process/Start";
const SEND_INPUT = "rpc process.Process/SendInput";

const { emulator, runtime } = await emulated({ owner: "terminal-tests" });
const handle = await runtime.launch();

async function drain(terminal: Terminal): Promise<TerminalEvent[]> {
  const events: TerminalEvent[] = [];
  for await (const event of terminal.events) events.push(event);
  return events;
}

test("one Start with a pty and one typed line; the events are the program's bytes only, then its exit", async () => {
  emulator.resetRequests();
  const terminal = await runtime.openTerminal(handle, { shell: "printf 'only this'; exit 5", cols: 100, rows: 30 });
  const routes = emulator.requests.map((request) => request.route).filter((route) => route.startsWith("rpc "));
  assert.deepEqual(routes, [START, SEND_INPUT], "bash started on a terminal, then the one line that execs the program");
  const events = await drain(terminal);
  const output = Buffer.concat(events.flatMap((event) => (event.type === "output" ? [event.bytes] : [])));
  assert.equal(output.toString("utf8"), "only this", "no banner, prompt or echo of the shell before the program");
  const exited = events.at(-1);
  assert.equal(exited?.type === "exited" && exited.exitCode, 5);
});

test("the program sees the request's cwd and env, and the terminal's size", async () => {
  const terminal = await runtime.openTerminal(handle, {
    shell:
      'printf "%s|%s|%s|%s" "$PWD" "$GREETING" "$(stty size)" "$(printenv SANDPORT_TERMINAL_SCRIPT || echo unset)"',
    cwd: "/home/user/workspace",
    env: { GREETING: "hi" },
    cols: 90,
    rows: 20,
  });
  const events = await drain(terminal);
  const output = Buffer.concat(events.flatMap((event) => (event.type === "output" ? [event.bytes] : [])));
  assert.match(output.toString("utf8"), /\|hi\|20 90\|unset$/, "the script's variable is gone before the program runs");
});

test("kill with another signal than SIGKILL is UNSUPPORTED and sends nothing; kill() ends the program", async () => {
  const terminal = await runtime.openTerminal(handle, { argv: ["sleep", "30"] });
  emulator.resetRequests();
  await expectCode(() => terminal.kill("SIGTERM"), "UNSUPPORTED", "kill('SIGTERM')");
  assert.equal(emulator.requests.length, 0, "nothing was sent");
  await terminal.kill();
  const exited = (await drain(terminal)).at(-1);
  assert.deepEqual(exited?.type === "exited" && [exited.exitCode, exited.timedOut], [null, false]);
  await expectCode(() => terminal.write("late"), "NOT_FOUND", "a write after the end");
});
