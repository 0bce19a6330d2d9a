#!/usr/bin/env node
// `pnpm demo`'s first step: builds the packages whose dist/ is out of date (all of them on a fresh
// clone), saying so in one line first, and skips the build when every dist/ is current. The build's
// own output is held back and shown only if it fails (scripts/quiet.mjs).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stalePackages } from "./build-freshness.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const total = readdirSync(join(root, "packages")).length;
const stale = stalePackages(root);

if (stale.length === 0) {
  console.error(`Every package's dist/ is newer than its sources: skipping the build.`);
  process.exit(0);
}

// The pnpm running this script (`pnpm demo` sets npm_execpath), else the repository's own through npx.
const execPath = process.env.npm_execpath;
const { packageManager } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const pnpm = execPath && /pnpm(\.c?js)?$/.test(execPath) ? [process.execPath, execPath] : ["npx", "-y", packageManager];
// Core first: the other packages' type declarations are built against its dist/.
const args =
  stale.length === total || stale.some(({ name }) => name === "@sandport/core")
    ? ["build"]
    : ["-r", ...stale.flatMap(({ name }) => ["--filter", name]), "run", "build"];
const reason = stale.length === 1 ? `${stale[0].name}: ${stale[0].reason}` : "dist/ missing or older than the sources";
const duration =
  args[0] === "build"
    ? "about 1.5 minutes on an idle 2-core machine, up to 8 on a busy one"
    : "a fraction of the full build's 1.5 to 8 minutes";
console.error(
  `Building ${args[0] === "build" ? `all ${total}` : `${stale.length} of ${total}`} packages (${reason}): ${duration}. Its output is shown only if it fails.`,
);
const quiet = fileURLToPath(new URL("./quiet.mjs", import.meta.url));
const run = spawnSync(process.execPath, [quiet, ...pnpm, ...args], { cwd: root, stdio: "inherit" });
process.exit(run.status ?? 1);
