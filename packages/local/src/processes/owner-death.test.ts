// A runtime process SIGKILLed while it starts commands leaves nothing that outlives a later destroy: a
// command whose runtime died before it was registered never starts (it waits for the runtime's "go"
// and reads end-of-file instead), and one registered before the death is killed by destroy through
// its marker in `running/`, whose owner is dead, once its recorded pid and start time still match.
// Without cgroups (`cgroups: "disabled"`, or a host where none is writable), where nothing else finds it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import { LocalRuntime } from "../index.js";
import type { LocalIsolation } from "../options.js";
import {
  bwrapSkipReason,
  ENTRY,
  killProcessesWithArgument,
  processesWithArgument,
  runNodeChild,
  temporaryDirectory,
  uniqueSleep,
  waitFor,
} from "../runtime.fixture.js";

const root = temporaryDirectory("owner-death");
after(() => root.remove());
const skipNamespaces = await bwrapSkipReason();

/** Trials per isolation mode, run this many at a time. */
const TRIALS = 12;
const PARALLEL = 4;

/**
 * One trial: a child runtime launches a sandbox and starts three `exec`s of
 * `sleep <unique>` at once; its `spawn` is wrapped so that the child SIGKILLs
 * itself on the `nth` spawn of one of them: right away (`delayMs` < 0), the
 * moment the command exists and nothing has been written to it yet, or
 * `delayMs` later. True when a command ran at that moment.
 */
async function trial(isolation: LocalIsolation, sleep: string, nth: number, delayMs: number): Promise<boolean> {
  const options = { root: root.path, isolation, cgroups: "disabled", killGraceMs: 100 };
  const child = runNodeChild(`
    import { createRequire, syncBuiltinESMExports } from "node:module";
    const require = createRequire(import.meta.url);
    const processes = require("node:child_process");
    const spawn = processes.spawn;
    const fs = require("node:fs");
    const sleep = ${JSON.stringify(sleep)};
    // Says whether a sleep runs (the control), then dies.
    const die = () => {
      const running = fs.readdirSync("/proc").some((name) => {
        try { return fs.readFileSync("/proc/" + name + "/cmdline", "utf8") === "sleep\\u0000" + sleep + "\\u0000"; } catch { return false; }
      });
      if (running) fs.writeSync(1, "running\\n");
      process.kill(process.pid, "SIGKILL");
    };
    let count = 0;
    processes.spawn = function (...args) {
      const spawned = spawn.apply(this, args);
      if (JSON.stringify(args[1] ?? []).includes(sleep) && ++count === ${nth}) {
        if (${delayMs} < 0) process.kill(process.pid, "SIGKILL");
        else setTimeout(die, ${delayMs});
      }
      return spawned;
    };
    syncBuiltinESMExports();
    const { LocalRuntime } = await import(${JSON.stringify(ENTRY)});
    const runtime = new LocalRuntime(${JSON.stringify(options)});
    const handle = await runtime.launch();
    const request = { argv: ["sleep", ${JSON.stringify(sleep)}], timeoutMs: 120000 };
    await Promise.all([runtime.exec(handle, request), runtime.exec(handle, request), runtime.exec(handle, request)]);
  `);
  const output = await child;
  assert.equal(output.code, null, `the child runtime was killed, not ended: ${output.stderr}`);
  return output.stdout.includes("running");
}

/** A process as `pid (state, parent) argv…`, for the failure message. */
function describeProcess(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\u0000").slice(0, 3).join(" ");
    return `${pid} (${stat[0]}, parent ${stat[1]}) ${argv}…`;
  } catch {
    return `${pid} (gone)`;
  }
}

for (const isolation of ["namespaces", "none"] as const) {
  describe(`isolation ${isolation}: the runtime process dies while starting commands`, {
    skip: isolation === "namespaces" ? skipNamespaces : undefined,
  }, () => {
    test("destroy from a fresh runtime leaves no command of it alive", async () => {
      const sleeps: string[] = [];
      let ran = 0;
      try {
        for (let first = 0; first < TRIALS; first += PARALLEL) {
          const batch = Array.from({ length: PARALLEL }, (_, index) => {
            const sleep = uniqueSleep();
            sleeps.push(sleep);
            const number = first + index;
            // Right at the spawn, then 0 to 200 ms after it (once commands run); at the first, second or third command.
            return trial(isolation, sleep, 1 + (number % 3), [-1, 0, 2, 10, 50, 200][number % 6] as number);
          });
          ran += (await Promise.all(batch)).filter(Boolean).length;
        }
        assert.ok(ran > 0, "control: in some trials, commands ran when their runtime process died");
        const started = sleeps.filter((sleep) => processesWithArgument(sleep).length > 0).length;
        const runtime = new LocalRuntime({ root: root.path, isolation, cgroups: "disabled", killGraceMs: 100 });
        const handles = await runtime.findByLabels({});
        await Promise.all(handles.map((handle) => runtime.destroy(handle)));
        const alive = () => sleeps.flatMap((sleep) => processesWithArgument(sleep));
        await waitFor(() => alive().length === 0, 10_000);
        assert.deepEqual(
          alive().map(describeProcess),
          [],
          `left alive after destroy (${started} of ${sleeps.length} trials had some, ${ran} ran at the death)`,
        );
      } finally {
        for (const sleep of sleeps) killProcessesWithArgument(sleep);
      }
    });
  });
}
