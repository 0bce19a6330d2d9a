// openTerminal on LocalRuntime: what the shared conformance checks (packages/testkit, terminal.*) do not pin
// down: the pty capability, that the terminal lives inside the sandbox, and that destroy and op.signal end it.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { resolveCapabilities, type Terminal, type TerminalEvent, type TerminalExitedEvent } from "@sandport/core";
import { LocalRuntime, type LocalRuntimeOptions } from "./index.js";
import { runsAsRoot } from "./options.js";
import { bwrapSkipReason, temporaryDirectory, waitFor } from "./runtime.fixture.js";

/** True while a host process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const root = temporaryDirectory("terminal");
after(() => root.remove());
const skipNamespaces = await bwrapSkipReason();

/** Reads events until `wanted` shows (returning the text), or until the exit (returning it too). */
async function read(
  events: AsyncIterator<TerminalEvent>,
  wanted?: RegExp,
): Promise<{ text: string; exited?: TerminalExitedEvent }> {
  let text = "";
  const decoder = new TextDecoder();
  for (let next = await events.next(); !next.done; next = await events.next()) {
    const event = next.value;
    if (event.type === "exited") return { text, exited: event };
    text += decoder.decode(event.bytes, { stream: true });
    if (wanted?.test(text)) return { text };
  }
  throw new Error("the events ended without exited");
}

const eventsOf = (terminal: Terminal) => terminal.events[Symbol.asyncIterator]();

const configurations: [string, LocalRuntimeOptions, string | undefined][] = [
  ["isolation namespaces", { isolation: "namespaces" }, skipNamespaces],
  [
    'namespaceScope "sandbox"',
    { isolation: "namespaces", namespaceScope: "sandbox" },
    skipNamespaces ?? (runsAsRoot() ? undefined : "shared namespaces need a root runtime"),
  ],
  ["isolation none", { isolation: "none" }, undefined],
];

for (const [name, configuration, skip] of configurations) {
  const isolation = configuration.isolation;
  describe(name, { skip }, () => {
    const options: LocalRuntimeOptions = { root: root.path, ...configuration };

    test("pty is true: openTerminal is there", () => {
      assert.equal(resolveCapabilities(new LocalRuntime(options)).pty, true);
    });

    test("the program runs on a terminal of its own, in the workspace, with TERM set", async () => {
      const runtime = new LocalRuntime(options);
      const handle = await runtime.launch();
      try {
        const terminal = await runtime.openTerminal(handle, {
          shell: 'test -t 0 && test -t 1 && test -t 2 && echo "tty=$(tty) cwd=$(pwd) term=$TERM"',
        });
        const { text, exited } = await read(eventsOf(terminal));
        assert.equal(exited?.exitCode, 0, text);
        const pts = isolation === "namespaces" ? "/dev/pts/0" : "/dev/pts/";
        assert.ok(
          text.includes(`tty=${pts}`),
          `a pseudo-terminal${isolation === "namespaces" ? " of the sandbox's own devpts" : ""}: ${text}`,
        );
        assert.match(text, isolation === "namespaces" ? /cwd=\/workspace / : /cwd=\/.+ /);
        assert.match(text, /term=xterm-256color\r\n/);
      } finally {
        await runtime.destroy(handle);
      }
    });

    for (const by of ["the same runtime", "another runtime instance"] as const) {
      test(`destroy by ${by} ends a running terminal: its events close with exited, no exit code`, async () => {
        const runtime = new LocalRuntime(options);
        const destroyer = by === "the same runtime" ? runtime : new LocalRuntime(options);
        const handle = await runtime.launch();
        const terminal = await runtime.openTerminal(handle, { shell: "printf 'rea%s\\n' dy; exec sleep 30" });
        const events = eventsOf(terminal);
        await read(events, /ready/);
        const reading = read(events);
        await destroyer.destroy(handle);
        const { exited } = await reading;
        assert.deepEqual([exited?.exitCode, exited?.timedOut], [null, false]);
        await assert.rejects(
          terminal.write("x"),
          (error: unknown) => (error as { code?: string }).code === "NOT_FOUND",
        );
      });
    }

    test("aborting op.signal after the start kills the terminal", async () => {
      const runtime = new LocalRuntime(options);
      const handle = await runtime.launch();
      try {
        const controller = new AbortController();
        const terminal = await runtime.openTerminal(handle, { argv: ["sleep", "30"] }, { signal: controller.signal });
        controller.abort(new Error("the caller gave up"));
        const { exited } = await read(eventsOf(terminal));
        assert.deepEqual([exited?.exitCode, exited?.signal, exited?.timedOut], [null, null, false]);
      } finally {
        await runtime.destroy(handle);
      }
    });

    test("a background job still holding the terminal does not hold back the exit, and dies with it", async () => {
      const runtime = new LocalRuntime(options);
      const handle = await runtime.launch();
      try {
        const terminal = await runtime.openTerminal(handle, { shell: "sleep 300 & printf 'left %s' $!; exit 3" });
        const { text, exited } = await read(eventsOf(terminal));
        assert.equal(exited?.exitCode, 3, text);
        assert.match(text, /^left \d+$/, "the output before the exit arrives whole");
        // Its own PID namespace died with bubblewrap; elsewhere the pid names the sleep where the runtime reaps it.
        const pid = Number(text.slice("left ".length));
        const gone = async () =>
          configuration.namespaceScope === "sandbox"
            ? (await runtime.exec(handle, { shell: `kill -0 ${pid} 2>/dev/null && echo alive || echo gone` }))
                .stdout === "gone\n"
            : !alive(pid);
        if (configuration.namespaceScope === "sandbox" || isolation === "none") {
          assert.ok(await waitFor(gone, 5_000), "the background sleep was killed with the terminal");
        }
      } finally {
        await runtime.destroy(handle);
      }
    });

    test("a program that cannot be found ends with 127, its complaint on the terminal", async () => {
      const runtime = new LocalRuntime(options);
      const handle = await runtime.launch();
      try {
        const terminal = await runtime.openTerminal(handle, { argv: ["no-such-program-here"] });
        const { text, exited } = await read(eventsOf(terminal));
        assert.equal(exited?.exitCode, 127);
        assert.match(text, /no-such-program-here/);
      } finally {
        await runtime.destroy(handle);
      }
    });
  });
}
