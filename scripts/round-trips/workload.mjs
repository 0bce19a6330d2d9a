// The standard workload W whose provider round trips the scripts in this folder count, and the report
// they print. Each provider file calls `benchProvider` with how to start its emulator, how to build a
// runtime against it from a set of built packages, and the API's minimum per phase;
// `node scripts/round-trips.mjs` runs them all (see there for the flags).
import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { largeFile } from "./large-file.mjs";
import { checkMinimum, foldRoutes, minimumTotal, PHASES, phaseRows, requestsRow, summaryLine } from "./report.mjs";
import { timeAgainstBaseline } from "./timing.mjs";
import { countWireBytes, wireBytes } from "./wire-bytes.mjs";

const repository = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Another library's request count for the same workload, which this script does not measure: a
 * constant, printed as such with where it came from.
 *
 * @typedef {object} ExternalFigure
 * @property {string} name - the library and its versions, e.g. "ComputeSDK 4.1.4 (@computesdk/e2b 1.7.52)"
 * @property {string} [short] - its name in the markdown table, e.g. "ComputeSDK"
 * @property {number} requests - its count for the workload
 * @property {string} source - how and against what it was counted
 */

/** Refuses an external figure that does not say what it is and where it came from. */
export function checkExternalFigure(peer) {
  if (typeof peer?.name !== "string" || !peer.name || !Number.isInteger(peer.requests) || peer.requests < 0)
    throw new Error(`an external figure needs a name and a request count: ${JSON.stringify(peer)}`);
  if (typeof peer.source !== "string" || peer.source.trim().length < 20)
    throw new Error(`the external figure for ${peer.name} must say where it came from (source)`);
}

/** A loader of built package entries in the checkout at `root`: `load("e2b")`, `load("testkit", "emulators/e2b")`. */
export function loaderOf(root) {
  return (name, entry = "index") => import(pathToFileURL(join(root, "packages", name, "dist", `${entry}.js`)).href);
}

/** Imports a built package entry of this checkout. */
export const loadBuilt = loaderOf(repository);

/** The value after `--name` on the command line, or whether `--name` is there when it takes none. */
export function option(name, takesValue = false) {
  const at = process.argv.indexOf(`--${name}`);
  if (!takesValue) return at >= 0;
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** The 20 × 1 KiB files W writes. */
const FILES = Array.from({ length: 20 }, (_, index) => ({
  path: `src/f${String(index).padStart(2, "0")}.txt`,
  content: `${index}`.padEnd(1024, "."),
}));

/**
 * Runs W once (launch; write 20 × 1 KiB files under src/ in one call; run `ls src | wc -l`,
 * `cat src/f00.txt` and `sh -c 'exit 3'`; read src/f00.txt and src/f19.txt; destroy), checking every
 * answer, and returns the requests each phase took (route names from `routes()`) and the wall time.
 */
export async function runWorkload(runtime, routes = () => []) {
  const phases = {};
  let seen = routes().length;
  const phase = (key) => {
    const all = routes();
    phases[key] = all.slice(seen);
    seen = all.length;
  };
  const started = performance.now();
  const handle = await runtime.launch();
  phase("launch");
  await runtime.writeFiles(handle, FILES);
  phase("write");
  const listed = await runtime.exec(handle, { shell: "ls src | wc -l" });
  const shown = await runtime.exec(handle, { argv: ["cat", "src/f00.txt"] });
  const failed = await runtime.exec(handle, { argv: ["sh", "-c", "exit 3"] });
  assert.equal(listed.stdout.trim(), "20");
  assert.equal(shown.stdout, FILES[0].content);
  assert.equal(failed.exitCode, 3);
  phase("exec");
  const decode = (bytes) => new TextDecoder().decode(bytes);
  assert.equal(decode(await runtime.readFile(handle, "src/f00.txt")), FILES[0].content);
  assert.equal(decode(await runtime.readFile(handle, "src/f19.txt")), FILES[19].content);
  phase("read");
  await runtime.destroy(handle);
  phase("destroy");
  return { phases, ms: performance.now() - started };
}

/**
 * Counts W's requests through one adapter against its emulator and prints them per route and per
 * phase next to the API's minimum; with `--large`, the large-file row; with `--timing`, W's wall time
 * against the baseline's build (see timing.mjs). With `--results <file>`, appends what it measured
 * there as one JSON line, for scripts/round-trips.mjs to print the markdown tables.
 *
 * @param {object} bench
 * @param {string} bench.adapter - the table's name, e.g. "E2B"
 * @param {string} bench.title - e.g. "E2BRuntime (real e2b SDK against the E2B emulator)"
 * @param {() => Promise<object>} bench.start - starts the emulator (of this checkout's testkit)
 * @param {(load: Function, emulator: object) => Promise<import("@sandport/core").SandboxRuntime>} bench.runtime -
 *   the runtime against `emulator`, built from the packages `load` imports (this checkout's or the baseline's)
 * @param {import("./report.mjs").PhaseMinimum} bench.minimum - the API's fewest requests per phase, each with why
 * @param {(emulator: object) => string[]} [bench.routes] - the emulator's requests as route names, in order
 * @param {(emulator: object) => number[]} [bench.wirePorts] - the ports whose bytes count (default: every server socket)
 * @param {(emulator: object) => void | Promise<void>} [bench.check] - asserts the emulator is clean afterwards (default: no unknown route, nothing alive)
 * @param {ExternalFigure[]} [bench.peers] - other libraries' counts for the same workload, not measured here
 * @param {(emulator: object) => Promise<object[]>} [bench.measurePeers] - other libraries counted live here (with --peers)
 * @param {(routes: string[]) => string} [bench.split] - a line that splits W's requests by kind
 * @param {string[]} [bench.notes] - why the count is above the minimum, one line per reason
 */
export async function benchProvider(bench) {
  const { adapter, title, minimum, peers = [], notes = [] } = bench;
  for (const peer of peers) checkExternalFigure(peer);
  checkMinimum(minimum);
  if (option("large")) countWireBytes();
  const emulator = await bench.start();
  try {
    const routes = () => (bench.routes ?? ((e) => e.requests.map((request) => request.route)))(emulator);
    const runtime = await bench.runtime(loadBuilt, emulator);
    const { phases } = await runWorkload(runtime, routes);
    const counts = Object.fromEntries(PHASES.map(({ key }) => [key, phases[key].length]));
    const rows = phaseRows(counts, minimum);
    const total = rows.reduce((sum, row) => sum + row.requests, 0);
    const floor = minimumTotal(minimum);
    // With --peers, a library counted live here replaces its external figure.
    const measured = bench.measurePeers && option("peers") ? await bench.measurePeers(emulator) : [];
    const allPeers = [...measured, ...peers.filter((peer) => !measured.some((live) => live.short === peer.short))];
    printCounts({ title, phases, rows, total, floor, minimum, peers: allPeers, notes });
    if (bench.split) console.log(`${bench.split(PHASES.flatMap(({ key }) => phases[key]))}\n`);
    const result = {
      adapter,
      total,
      minimum: floor,
      row: requestsRow({ adapter, total, minimum: floor, rows, peers: allPeers }),
    };
    if (option("large")) {
      const ports = bench.wirePorts?.(emulator);
      result.large = await largeFile(adapter, await bench.runtime(loadBuilt, emulator), () => wireBytes(ports));
    }
    if (option("timing")) {
      const dir = option("baseline-dir", true);
      result.timing = await timeAgainstBaseline({
        adapter,
        rounds: Number(option("rounds", true) ?? 5),
        baseline: dir ? { load: loaderOf(dir), ref: option("baseline-ref", true) ?? dir } : undefined,
        current: loadBuilt,
        run: async (load) => (await runWorkload(await bench.runtime(load, emulator))).ms,
      });
    }
    if (result.large?.leftBehind)
      console.log("(not checking that the emulator is clean: the large file's sandbox is left)\n");
    else await (bench.check ?? defaultCheck)(emulator);
    const file = option("results", true);
    if (file) appendFileSync(file, `${JSON.stringify(result)}\n`);
    return { total, apiMinimum: floor, phases };
  } finally {
    await emulator.stop();
  }
}

function defaultCheck(emulator) {
  assert.deepEqual(emulator.unknownRoutes, []);
  assert.equal(emulator.liveSandboxes().length, 0);
}

function printCounts({ title, phases, rows, total, floor, minimum, peers, notes }) {
  const byRoute = new Map();
  for (const { key } of PHASES) for (const route of phases[key]) byRoute.set(route, (byRoute.get(route) ?? 0) + 1);
  const width = Math.max(...[...byRoute.keys()].map((route) => route.length), 34);
  const line = (label, count) => console.log(`${label.padEnd(width)}  ${String(count).padStart(8)}`);
  console.log(`${title}: launch, write 20 files, 3 execs, read 2 files, destroy\n`);
  console.log(`${"route".padEnd(width)}  requests`);
  for (const [route, count] of [...byRoute].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) line(route, count);
  line("total", total);
  line("API minimum", floor);
  for (const peer of peers)
    line(`${peer.name} (${peer.measured ? "measured here" : "external figure"})`, peer.requests);
  console.log("\nby phase (requests / API minimum: why that minimum):");
  for (const row of rows)
    console.log(
      `  ${row.label.padEnd(15)} ${String(row.requests).padStart(3)} / ${String(row.minimum).padEnd(3)} ${minimum[row.key][1]}\n` +
        `  ${"".padEnd(15)}           ${foldRoutes(phases[row.key]) || "(none)"}`,
    );
  console.log(`\n${summaryLine(total, floor)}`);
  if (notes.length > 0)
    console.log(["", "Above the minimum, and why:", ...notes.map((note) => `  ${note}`)].join("\n"));
  const external = peers.filter((peer) => !peer.measured);
  if (external.length > 0)
    console.log(
      ["", "External figures (constants in scripts/round-trips/, not measured in this run):"]
        .concat(external.map((peer) => `  ${peer.name} ${peer.requests}: ${peer.source}`))
        .join("\n"),
    );
  for (const peer of peers.filter((peer) => peer.measured))
    console.log(`\n${peer.name}, measured here: ${peer.requests} (${peer.detail})`);
  console.log("");
}
