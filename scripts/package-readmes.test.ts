// A package's README is read on the registry and in the installed tarball, where the rest of the
// repository is not: every link in it must work from there.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, normalize, relative } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
/** Files npm puts in every tarball, whatever `files` says. */
const ALWAYS_PACKED = ["package.json", "README.md", "LICENSE", "CHANGELOG.md"];

/** The link targets of a Markdown text outside fenced code: inline, reference-style and HTML. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1] as string),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1] as string),
    ...[...prose.matchAll(/\b(?:href|src)\s*=\s*"([^"]+)"/g)].map((match) => match[1] as string),
  ];
}

/**
 * What is wrong with `target`, a link in the README of the package at `packageDir` whose
 * package.json lists `files`, once the package is installed on its own; undefined when nothing is.
 */
function brokenInTarball(target: string, packageDir: string, files: string[]): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) return undefined;
  const path = normalize(target.split("#")[0] as string);
  if (path === "" || path === ".") return undefined;
  if (path.startsWith("..") || path.startsWith("/")) return "leaves the package: use the repository's URL";
  const packed = [...ALWAYS_PACKED, ...files].some((entry) => {
    const included = normalize(entry).replace(/\/$/, "");
    return path === included || path.startsWith(`${included}/`);
  });
  if (!packed) return "names a file the tarball does not hold";
  if (!existsSync(join(packageDir, path))) return "names a file that does not exist";
  return undefined;
}

/** The repository's web address, from a package.json `repository` field. */
function repositoryUrl(manifest: { repository?: { url?: string } }): string | undefined {
  return manifest.repository?.url?.replace(/^git\+/, "").replace(/\.git$/, "");
}

describe("package READMEs", () => {
  test("links are found in prose, not in code", () => {
    const text =
      'See [a](../a.md), [b]( <b.md> "title").\n[c]: ./c.md\n<a href="d.md">d</a>\n```ts\nimport "../e.js";\n```\n`[f](f.md)`';
    assert.deepEqual(linkTargets(text), ["../a.md", "b.md", "./c.md", "d.md"]);
  });

  test("a link leaving the package, or to a file not packed, is broken in the tarball", () => {
    const dir = join(root, "packages", "core");
    assert.match(brokenInTarball("../../docs/bridges.md", dir, ["dist"]) ?? "", /leaves the package/);
    assert.match(brokenInTarball("src/index.ts", dir, ["dist"]) ?? "", /does not hold/);
    assert.match(brokenInTarball("dist/missing.js", dir, ["dist"]) ?? "", /does not exist/);
    assert.equal(brokenInTarball("README.md#options", dir, ["dist"]), undefined);
    assert.equal(brokenInTarball("https://github.com/sandport/sandport/blob/main/docs/bridges.md", dir, []), undefined);
    assert.equal(brokenInTarball("#errors", dir, []), undefined);
  });

  test("no package README links to something its tarball lacks, and repository links name files that exist", () => {
    const offenders: string[] = [];
    for (const dir of readdirSync(join(root, "packages"))) {
      const packageDir = join(root, "packages", dir);
      const readmePath = join(packageDir, "README.md");
      if (!existsSync(readmePath)) continue;
      const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
      const repository = repositoryUrl(manifest);
      for (const target of linkTargets(readFileSync(readmePath, "utf8"))) {
        const broken = brokenInTarball(target, packageDir, manifest.files ?? []);
        if (broken) offenders.push(`${relative(root, readmePath)}: ${target} ${broken}`);
        // A link into this repository names a file at its path on the default branch.
        const inRepository = repository && new RegExp(`^${repository}/(?:blob|tree)/main/([^#?]+)`).exec(target);
        if (inRepository && !existsSync(join(root, inRepository[1] as string)))
          offenders.push(`${relative(root, readmePath)}: ${target} names no file of the repository`);
      }
    }
    assert.deepEqual(offenders, []);
  });
});
