// A runtime process SIGKILLed while it starts commands leaves nothing that outlives a later destroy: a
// command whose runtime died before it was registered never starts (it waits for the runtime's "go"
// and reads end-of-file instead), and one registered before the death is killed by destroy through
// its marker in `running/`, whose owner is dead, once its recorded pid and start time still match.
// Without cgroups (`cgroups: "disabled"`, or a host where none is writable), where nothing else finds it.
import assert from "node:assert/strict";
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
 * `delayMs` later.
 */
async function trial(isolation: LocalIsolation, sleep: string, nth: number, delayMs: number): Promise<void> {
  const options = { root: root.path, isolation, cgroups: "disabled", killGraceMs: 100 };
  const child = runNodeChild(`
    import { createRequire, syncBuiltinESMExports } from "node:module";
    const require = createRequire(import.meta.url);
    const processes = require("node:child_process");
    const spawn = processes.spawn;
    let count = 0;
    processes.spawn = function (...args) {
      const spawned = spawn.apply(this, args);
      if (JSON.stringify(args[1] ?? []).includes(${JSON.stringify(sleep)}) && ++count === ${nth}) {
        if (${delayMs} < 0) process.kill(process.pid, "SIGKILL");
        else setTimeout(() => process.kill(process.pid, "SIGKILL"), ${delayMs});
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
}

for (const isolation of ["namespaces", "none"] as const) {
  describe(`isolation ${isolation}: the runtime process dies while starting commands`, {
    skip: isolation === "namespaces" ? skipNamespaces : undefined,
  }, () => {
    test("destroy from a fresh runtime leaves no command of it alive", async () => {
      const sleeps: string[] = [];
      try {
        for (let first = 0; first < TRIALS; first += PARALLEL) {
          const batch = Array.from({ length: PARALLEL }, (_, index) => {
            const sleep = uniqueSleep();
            sleeps.push(sleep);
            const number = first + index;
            // Right at the spawn, then 0, 1, 2, 5 and 10 ms after it; at the first, second or third command.
            return trial(isolation, sleep, 1 + (number % 3), [-1, 0, 1, 2, 5, 10][number % 6] as number);
          });
          await Promise.all(batch);
        }
        const started = sleeps.filter((sleep) => processesWithArgument(sleep).length > 0).length;
        const runtime = new LocalRuntime({ root: root.path, isolation, cgroups: "disabled", killGraceMs: 100 });
        const handles = await runtime.findByLabels({});
        await Promise.all(handles.map((handle) => runtime.destroy(handle)));
        const alive = () => sleeps.flatMap((sleep) => processesWithArgument(sleep));
        await waitFor(() => alive().length === 0, 10_000);
        assert.deepEqual(
          alive(),
          [],
          `left alive after destroy (${started} of ${sleeps.length} trials had started some)`,
        );
      } finally {
        for (const sleep of sleeps) killProcessesWithArgument(sleep);
      }
    });
  });
}
