#!/usr/bin/env node
// Runs every co-located *.test.ts under packages/ and scripts/ with node:test, TypeScript loaded through tsx.
// Usage: node scripts/run-tests.mjs [path-substring ...]   (filters test files by substring)
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const filters = process.argv.slice(2);

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTests(path));
    else if (entry.name.endsWith(".test.ts")) found.push(path);
  }
  return found;
}

const files = [...findTests(join(root, "packages")), ...findTests(join(root, "scripts"))]
  .map((file) => relative(root, file))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(", ")}`);
  process.exit(1);
}

// Test files are mostly waiting on processes and sockets, so run several at once even on 2 cores.
const concurrency = Number(process.env.SANDPORT_TEST_CONCURRENCY ?? 4);
const child = spawn(
  process.execPath,
  [
    "--import",
    "tsx",
    "--test",
    "--test-reporter=spec",
    `--test-concurrency=${concurrency}`,
    // A test that leaves a handle open (a stray child, a socket) must not hang the run.
    "--test-force-exit",
    ...files,
  ],
  { cwd: root, stdio: "inherit" },
);
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
