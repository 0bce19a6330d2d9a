#!/usr/bin/env node
// Round trips of the canonical workload through E2BRuntime and the real e2b SDK, counted by
// the E2B emulator from @sandport/testkit. Not a test: it prints the requests per route and
// per phase, the total, and the minimum the E2B API allows for the same workload.
//
//   pnpm -r --filter "@sandport/testkit..." --filter @sandport/e2b build && node scripts/count-e2b-round-trips.mjs
//
// Workload: launch; write 20 × 1 KiB files under src/ in one call; run `ls src | wc -l`,
// `cat src/f00.txt` and `sh -c 'exit 3'`; read src/f00.txt and src/f19.txt; destroy.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repository = fileURLToPath(new URL("..", import.meta.url));
const load = (name) => import(pathToFileURL(join(repository, "packages", name, "dist/index.js")).href);
const { E2BRuntime } = await load("e2b");
const { startE2BEmulator } = await import(
  pathToFileURL(join(repository, "packages", "testkit", "dist/emulators/e2b.js")).href
);

/** The fewest requests the E2B API allows for the workload (counted against a local fake of its API). */
const API_MINIMUM = 8;
/** ComputeSDK's count for the same workload through its E2B adapter (computesdk 4.1.4, counted the same way). */
const COMPUTESDK = 28;

const emulator = await startE2BEmulator();
const phases = [];
let seen = 0;
const phase = (name) => {
  phases.push({ name, requests: emulator.requests.slice(seen).map((request) => request.route) });
  seen = emulator.requests.length;
};

try {
  const runtime = new E2BRuntime({
    apiKey: emulator.apiKey,
    apiUrl: emulator.apiUrl,
    sandboxUrl: emulator.sandboxUrl,
    domain: emulator.domain,
    owner: "round-trip-count",
  });
  emulator.resetRequests();

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

  const first = new TextDecoder().decode(await runtime.readFile(handle, "src/f00.txt"));
  const last = new TextDecoder().decode(await runtime.readFile(handle, "src/f19.txt"));
  assert.equal(first, files[0].content);
  assert.equal(last, files[19].content);
  phase("read 2 files");

  await runtime.destroy(handle);
  phase("destroy");
  assert.deepEqual(emulator.unknownRoutes, []);
  assert.equal(emulator.liveSandboxes().length, 0);
} finally {
  await emulator.stop();
}

const byRoute = new Map();
for (const { requests } of phases) for (const route of requests) byRoute.set(route, (byRoute.get(route) ?? 0) + 1);
const total = phases.reduce((sum, { requests }) => sum + requests.length, 0);
const width = Math.max(...[...byRoute.keys()].map((route) => route.length), 34);

console.log("E2BRuntime round trips: launch, write 20 files, 3 execs, read 2 files, destroy");
console.log("(real e2b SDK against the E2B emulator; every request the emulator received)\n");
console.log(`${"route".padEnd(width)}  requests`);
for (const [route, count] of [...byRoute].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) {
  console.log(`${route.padEnd(width)}  ${String(count).padStart(8)}`);
}
console.log(`${"total".padEnd(width)}  ${String(total).padStart(8)}`);
console.log(`${"E2B API minimum".padEnd(width)}  ${String(API_MINIMUM).padStart(8)}`);
console.log(`${"ComputeSDK (same workload)".padEnd(width)}  ${String(COMPUTESDK).padStart(8)}\n`);
console.log("by phase:");
for (const { name, requests } of phases)
  console.log(`  ${name.padEnd(16)} ${String(requests.length).padStart(2)}  ${requests.join(", ")}`);
console.log(
  [
    "",
    "Above the minimum, and why:",
    "  launch  +1  MakeDir creates the workspace directory, so commands can run in it before any file is written",
    "  reads   +1 each  a `realpath -m` command refuses paths that leave the workspace through a symlink;",
    "                   skipped while no command has run in a sandbox this runtime launched (the write above)",
    "  destroy +1  a GET after the DELETE proves the sandbox is gone (verified cleanup)",
  ].join("\n"),
);
