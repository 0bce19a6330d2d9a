#!/usr/bin/env node
// Keeps the documentation's code in step with examples/: every ```ts / ```js block in README.md,
// packages/*/README.md and docs/*.md follows a marker `<!-- example: examples/<file> -->` and is
// that file, verbatim. `--write` copies the files into the blocks; `--check` (and no flag) fails
// when a block is stale or unmarked. The examples themselves run in scripts/examples.test.ts.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const MARKER = /^<!-- example: (examples\/[^ ]+) -->$/;
const CODE_FENCE = /^```(ts|typescript|js|javascript|mjs)\s*$/;

/** Markdown files whose code blocks must be examples. */
export function documents() {
  const files = [join(root, "README.md")];
  for (const dir of readdirSync(join(root, "packages"))) {
    const readme = join(root, "packages", dir, "README.md");
    if (existsSync(readme)) files.push(readme);
  }
  for (const name of readdirSync(join(root, "docs"))) if (name.endsWith(".md")) files.push(join(root, "docs", name));
  return files;
}

/** The document with its example blocks refreshed, and what was wrong with it. */
export function syncDocument(path) {
  const lines = readFileSync(path, "utf8").split("\n");
  const problems = [];
  const out = [];
  let pending;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const marker = MARKER.exec(line);
    if (marker) {
      pending = marker[1];
      out.push(line);
      continue;
    }
    const fence = CODE_FENCE.exec(line);
    if (!fence) {
      if (line.trim() !== "") pending = undefined;
      out.push(line);
      continue;
    }
    let end = index + 1;
    while (end < lines.length && lines[end] !== "```") end++;
    const where = `${relative(root, path)}:${index + 1}`;
    if (!pending) {
      problems.push(`${where}: a ${fence[1]} block without an <!-- example: examples/... --> marker`);
      out.push(...lines.slice(index, end + 1));
    } else if (!existsSync(join(root, pending))) {
      problems.push(`${where}: ${pending} does not exist`);
      out.push(...lines.slice(index, end + 1));
    } else {
      const wanted = readFileSync(join(root, pending), "utf8").replace(/\n$/, "");
      if (lines.slice(index + 1, end).join("\n") !== wanted)
        problems.push(`${where}: the block differs from ${pending}`);
      out.push(line, wanted, "```");
    }
    pending = undefined;
    index = end;
  }
  return { text: out.join("\n"), problems };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const write = process.argv.includes("--write");
  let failed = false;
  for (const path of documents()) {
    const { text, problems } = syncDocument(path);
    if (write) writeFileSync(path, text);
    for (const problem of problems) {
      if (write && problem.includes("differs")) continue;
      console.error(problem);
      failed = true;
    }
  }
  if (failed) process.exit(1);
}
