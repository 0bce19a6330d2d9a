// Whether each package's dist/ is current: built after every input of its build changed. The demo
// uses it to skip `pnpm build` when nothing changed (scripts/build-if-stale.mjs).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** Inputs every package's build shares, relative to the repository root. */
export const SHARED_INPUTS = ["tsup.base.ts", "tsconfig.base.json"];
/** Files in a package that its build does not read: tests and prose. */
const NOT_INPUT = /\.test\.ts$|\.md$/;

/** Every file under `dir` (recursively), skipping `node_modules` and `dist`. */
function filesUnder(dir, skip = ["node_modules", "dist"]) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skip.includes(entry.name)) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path, skip) : [path];
  });
}

/** The built files a package.json names (`exports`, `main`, `module`, `types`, `bin`), without patterns. */
function namedOutputs(manifest) {
  const found = [];
  const visit = (value) => {
    if (typeof value === "string") {
      if (value.startsWith("./dist/") && !value.includes("*")) found.push(value.slice(2));
    } else if (value && typeof value === "object") {
      for (const inner of Object.values(value)) visit(inner);
    }
  };
  visit([manifest.exports, manifest.main, manifest.module, manifest.types, manifest.bin]);
  return [...new Set(found)];
}

/**
 * Why the package in `packageDir` needs building, or undefined when its dist/ is current: every file
 * its package.json names exists, and the oldest file in dist/ is newer than the newest input (its
 * package.json, tsup and TypeScript configuration, sources and scripts, and `sharedInputs`).
 */
export function whyStale(packageDir, sharedInputs = []) {
  const dist = join(packageDir, "dist");
  const outputs = filesUnder(dist, []);
  if (outputs.length === 0) return "not built";
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const missing = namedOutputs(manifest).find((file) => !existsSync(join(packageDir, file)));
  if (missing) return `${missing} is missing`;
  const builtAt = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
  const inputs = [...filesUnder(packageDir).filter((file) => !NOT_INPUT.test(file)), ...sharedInputs];
  const newer = inputs.find((file) => existsSync(file) && statSync(file).mtimeMs > builtAt);
  return newer ? `${relative(packageDir, newer)} changed after the build` : undefined;
}

/** Every package under `root`/packages whose dist/ is not current, with why: `[{ dir, name, reason }]`. */
export function stalePackages(root) {
  const shared = SHARED_INPUTS.map((file) => join(root, file));
  return readdirSync(join(root, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, "packages", entry.name, "package.json")))
    .flatMap((entry) => {
      const packageDir = join(root, "packages", entry.name);
      const reason = whyStale(packageDir, shared);
      if (!reason) return [];
      const { name } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
      return [{ dir: entry.name, name, reason }];
    });
}
