// examples/terminal.ts — a shell on a real terminal inside the sandbox: resize it, and Ctrl-C a job.
import { LocalRuntime } from "sandport/local";

const runtime = new LocalRuntime();
const sandbox = await runtime.launch();
try {
  const terminal = await runtime.openTerminal(sandbox, { argv: ["sh", "-i"], cols: 80, rows: 24 });
  let screen = "";
  const events = terminal.events[Symbol.asyncIterator]();
  /** Reads the terminal until `pattern` shows up in what it printed. */
  const waitFor = async (pattern: RegExp) => {
    while (!pattern.test(screen)) {
      const next = await events.next();
      if (next.done || next.value.type === "exited") throw new Error(`the shell ended before ${pattern}`);
      screen += new TextDecoder().decode(next.value.bytes);
    }
  };
  await terminal.write("stty size\n");
  await waitFor(/24 80/);
  await terminal.resize(120, 40);
  await terminal.write("stty size\n");
  await waitFor(/40 120/);
  // `rea%s` so that the echo of the typed line is not mistaken for the job's own output.
  await terminal.write("sh -c 'printf \"rea%s\\n\" dy; exec sleep 60'\n");
  await waitFor(/ready/);
  await terminal.write("\u0003"); // Ctrl-C: SIGINT to the foreground job, as in a terminal emulator.
  await waitFor(/\^C/);
  await terminal.write("echo status=$?; exit\n");
  await waitFor(/status=\d+/);
  console.log(screen.match(/status=\d+/)?.[0], "after Ctrl-C; the window was", screen.match(/40 120/)?.[0]);
} finally {
  await runtime.destroy(sandbox);
}
