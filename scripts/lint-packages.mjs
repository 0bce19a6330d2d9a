#!/usr/bin/env node
// Checks the published surface of every public package mechanically: publint
// (package.json vs the files it names) and @arethetypeswrong/cli (types resolve
// for ESM and CJS consumers under every module resolution). attw skips `*`
// patterns in an exports map, so each file a pattern matches in dist is named
// to it as an entry point. Needs `pnpm build`.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => join(root, "node_modules", ".bin", name);
const failed = [];

/** The subpaths a package's `*` export patterns match among its built files ("./emulators/e2b", ...). */
function patternEntrypoints(packageDir, manifest) {
  const found = [];
  for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
    if (!subpath.includes("*")) continue;
    const [prefix, suffix] = conditions.import.default.split("*");
    const folder = join(packageDir, prefix);
    for (const file of existsSync(folder) ? readdirSync(folder) : []) {
      if (file.endsWith(suffix)) found.push(subpath.replace("*", file.slice(0, -suffix.length)));
    }
  }
  return found;
}

for (const dir of readdirSync(join(root, "packages"))) {
  const packageDir = join(root, "packages", dir);
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  if (manifest.private) continue;
  const patterns = patternEntrypoints(packageDir, manifest);
  const include = patterns.length === 0 ? [] : ["--include-entrypoints", ...patterns];
  for (const [tool, args] of [
    ["publint", ["--strict", packageDir]],
    ["attw", ["--pack", packageDir, "--format", "ascii", ...include]],
  ]) {
    const run = spawnSync(bin(tool), args, { cwd: root, encoding: "utf8" });
    const output = `${run.stdout}${run.stderr}`.trim();
    if (run.status !== 0) {
      failed.push(`${manifest.name}: ${tool}`);
      console.error(`✖ ${manifest.name}: ${tool}\n${output}\n`);
    } else {
      console.log(`✔ ${manifest.name}: ${tool}`);
    }
  }
}

if (failed.length > 0) {
  console.error(`package lint failed: ${failed.join(", ")}`);
  process.exit(1);
}
