// docs/adapters.md says which files a vendor adapter has: the tree every adapter has, and tables of
// the files some adapters add. Both must match packages/<p>/src.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const doc = readFileSync(join(root, "docs/adapters.md"), "utf8");
const section = doc.slice(doc.indexOf("## 2. The files"), doc.indexOf("## 3."));

/** The vendor adapters: runtime packages with an SDK (the local runtime has none, and its own layout). */
const adapters = readdirSync(join(root, "packages")).filter((dir) => {
  const manifest = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"));
  return typeof manifest.sandport?.runtime === "string" && dir !== "local";
});

/** The files of the tree in the section's first code block, as paths under packages/<p>/. */
function commonFiles(): string[] {
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const files: string[] = [];
  const folders: string[] = [];
  for (const line of block.split("\n").slice(1)) {
    // Entries are indented two spaces per level; description lines run on far to the right.
    const entry = /^( {2,10})(\S+)/.exec(line);
    if (!entry) continue;
    const depth = (entry[1] as string).length / 2 - 1;
    const name = entry[2] as string;
    folders.length = depth;
    if (name.endsWith("/")) folders.push(name);
    else files.push(folders.join("") + name);
  }
  return files;
}

/** The section's table rows: a file under src/ and the adapters that have it. */
function tableFiles(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const [, file, adapterList] of section.matchAll(/^\| `([^`]+\.ts)` \|.*\| ([a-z0-9, -]+) \|$/gm))
    rows.set(`src/${file}`, (adapterList as string).split(", "));
  return rows;
}

/** Every non-test source file of an adapter, relative to its package directory. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("docs/adapters.md's file list", () => {
  test("it is read: a tree of common files and tables of the rest", () => {
    assert.ok(adapters.length >= 6, adapters.join(", "));
    assert.ok(commonFiles().includes("src/internal/sdk-types.ts"), commonFiles().join(", "));
    assert.ok(commonFiles().includes("package.json"));
    assert.ok(tableFiles().size >= 10);
  });

  test("every adapter has every file of the tree, its runtime class in its one <p>-runtime.ts", () => {
    const missing: string[] = [];
    for (const dir of adapters) {
      const packageDir = join(root, "packages", dir);
      const { sandport } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
      for (const file of commonFiles()) {
        if (file === "src/<p>-runtime.ts") {
          const runtimes = readdirSync(join(packageDir, "src")).filter((name) => name.endsWith("-runtime.ts"));
          const text =
            runtimes.length === 1 ? readFileSync(join(packageDir, "src", runtimes[0] as string), "utf8") : "";
          if (!text.includes(`export class ${sandport.runtime} `)) missing.push(`packages/${dir}: ${file}`);
        } else if (!existsSync(join(packageDir, file))) {
          missing.push(`packages/${dir}/${file}`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });

  test("every other source file of an adapter is in a table row naming that adapter, and every row is true", () => {
    const common = new Set(commonFiles());
    const rows = tableFiles();
    const undocumented: string[] = [];
    for (const dir of adapters) {
      const packageDir = join(root, "packages", dir);
      for (const file of sources(join(packageDir, "src")).map((path) => relative(packageDir, path))) {
        if (common.has(file) || /^src\/[a-z0-9-]+-runtime\.ts$/.test(file)) continue;
        if (!rows.get(file)?.includes(dir)) undocumented.push(`packages/${dir}/${file}`);
      }
    }
    const untrue = [...rows].flatMap(([file, listed]) =>
      listed.filter((dir) => !existsSync(join(root, "packages", dir, file))).map((dir) => `packages/${dir}/${file}`),
    );
    assert.deepEqual(undocumented, [], "source files docs/adapters.md does not list");
    assert.deepEqual(untrue, [], "files docs/adapters.md lists that do not exist");
  });
});
