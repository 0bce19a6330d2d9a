// The standard workload whose provider round trips the scripts in this folder count, and the report
// they print. Each provider file starts its emulator, builds a runtime against it and calls
// `countRoundTrips` with the emulator's request log; `node scripts/round-trips.mjs` runs them all.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repository = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Another library's request count for the same workload, which this script does not measure: a
 * constant, printed as such with where it came from.
 *
 * @typedef {object} ExternalFigure
 * @property {string} name - the library and its versions, e.g. "ComputeSDK 4.1.4 (@computesdk/e2b 1.7.52)"
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

/** Imports a built package entry: `loadBuilt("e2b")`, `loadBuilt("testkit", "emulators/e2b")`. */
export function loadBuilt(name, entry = "index") {
  return import(pathToFileURL(join(repository, "packages", name, "dist", `${entry}.js`)).href);
}

/**
 * Runs the workload (launch; write 20 × 1 KiB files under src/ in one call; run `ls src | wc -l`,
 * `cat src/f00.txt` and `sh -c 'exit 3'`; read src/f00.txt and src/f19.txt; destroy) and prints the
 * requests per route and per phase next to the API's minimum and a peer library's count.
 *
 * @param {object} report
 * @param {string} report.title - e.g. "E2BRuntime (real e2b SDK against the E2B emulator)"
 * @param {import("@sandport/core").SandboxRuntime} report.runtime
 * @param {() => string[]} report.routes - every request the emulator has received, as route names, in order
 * @param {number} report.apiMinimum - the fewest requests the provider's API allows for the workload
 * @param {ExternalFigure[]} [report.peers] - other libraries' counts for the same workload, not measured here
 * @param {string[]} [report.notes] - why the count is above the minimum, one line per reason
 */
export async function countRoundTrips({ title, runtime, routes, apiMinimum, peers = [], notes = [] }) {
  for (const peer of peers) checkExternalFigure(peer);
  const phases = [];
  let seen = routes().length;
  const phase = (name) => {
    const all = routes();
    phases.push({ name, requests: all.slice(seen) });
    seen = all.length;
  };

  const handle = await runtime.launch();
  phase("launch");
  const files = Array.from({ length: 20 }, (_, index) => ({
    path: `src/f${String(index).padStart(2, "0")}.txt`,
    content: `${index}`.padEnd(1024, "."),
  }));
  await runtime.writeFiles(handle, files);
  phase("write 20 files");
  const listed = await runtime.exec(handle, { shell: "ls src | wc -l" });
  const shown = await runtime.exec(handle, { argv: ["cat", "src/f00.txt"] });
  const failed = await runtime.exec(handle, { argv: ["sh", "-c", "exit 3"] });
  assert.equal(listed.stdout.trim(), "20");
  assert.equal(shown.stdout, files[0].content);
  assert.equal(failed.exitCode, 3);
  phase("3 execs");
  const decode = (bytes) => new TextDecoder().decode(bytes);
  assert.equal(decode(await runtime.readFile(handle, "src/f00.txt")), files[0].content);
  assert.equal(decode(await runtime.readFile(handle, "src/f19.txt")), files[19].content);
  phase("read 2 files");
  await runtime.destroy(handle);
  phase("destroy");

  const byRoute = new Map();
  for (const { requests } of phases) for (const route of requests) byRoute.set(route, (byRoute.get(route) ?? 0) + 1);
  const total = phases.reduce((sum, { requests }) => sum + requests.length, 0);
  const width = Math.max(...[...byRoute.keys()].map((route) => route.length), 34);
  const row = (label, count) => console.log(`${label.padEnd(width)}  ${String(count).padStart(8)}`);

  console.log(`${title}: launch, write 20 files, 3 execs, read 2 files, destroy\n`);
  console.log(`${"route".padEnd(width)}  requests`);
  for (const [route, count] of [...byRoute].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) row(route, count);
  row("total", total);
  row("API minimum", apiMinimum);
  for (const peer of peers) row(`${peer.name} (external figure)`, peer.requests);
  console.log("\nby phase:");
  for (const { name, requests } of phases)
    console.log(`  ${name.padEnd(16)} ${String(requests.length).padStart(2)}  ${requests.join(", ")}`);
  if (notes.length > 0)
    console.log(["", "Above the minimum, and why:", ...notes.map((note) => `  ${note}`)].join("\n"));
  if (peers.length > 0)
    console.log(
      ["", "External figures (constants in scripts/round-trips/, not measured in this run):"]
        .concat(peers.map((peer) => `  ${peer.name} ${peer.requests}: ${peer.source}`))
        .join("\n"),
    );
  console.log("");
  return { total, apiMinimum };
}
