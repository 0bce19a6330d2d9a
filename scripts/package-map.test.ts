// The package map in README.md and docs/architecture.md is generated from the packages' package.json
// files, is current, and cannot leave a package out.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { replaceSection, updateSections } from "./generated-section.mjs";
import { packageKind, packageMap } from "./package-map.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const temporary: string[] = [];
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository with the given packages (directory → package.json) and nothing else. */
function fakeRepository(packages: Record<string, object>): string {
  const dir = mkdtempSync(join(tmpdir(), "sandport-package-map-"));
  temporary.push(dir);
  for (const [name, manifest] of Object.entries(packages)) {
    mkdirSync(join(dir, "packages", name), { recursive: true });
    writeFileSync(join(dir, "packages", name, "package.json"), JSON.stringify(manifest));
  }
  return dir;
}

describe("the package map", () => {
  test("README.md and docs/architecture.md carry the current map", () => {
    const run = spawnSync(process.execPath, ["scripts/package-map.mjs", "--check"], { cwd: root, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
  });

  test("it has one row per directory under packages/, with that package's name and description", () => {
    const map = packageMap(root);
    const directories = readdirSync(join(root, "packages"));
    assert.equal(map.split("\n").length - 2, directories.length);
    for (const dir of directories) {
      const manifest = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"));
      assert.ok(map.includes(`| \`${manifest.name}\` |`), `${manifest.name} is missing`);
      assert.ok(map.includes(manifest.description), `${manifest.name}'s description is missing`);
    }
  });

  test("it groups runtimes, bridges, the kit and the umbrella, in that order", () => {
    const repository = fakeRepository({
      umbrella: { name: "sandport", description: "the umbrella" },
      core: { name: "@sandport/core", description: "the port" },
      zeta: { name: "@sandport/zeta", description: "a bridge", sandport: { kind: "bridge" } },
      acme: { name: "@sandport/acme", description: "a runtime", sandport: { runtime: "AcmeRuntime" } },
    });
    const kinds = packageMap(repository)
      .split("\n")
      .slice(2)
      .map((row) => row.split(" | ")[1]);
    assert.deepEqual(kinds, ["runtime", "bridge", "kit", "umbrella"]);
  });

  test("a package it cannot classify, or one without a description, fails the generator", () => {
    assert.throws(() => packageKind({ name: "@sandport/mystery" }), /cannot tell what @sandport\/mystery is/);
    const repository = fakeRepository({ acme: { name: "@sandport/acme", sandport: { runtime: "AcmeRuntime" } } });
    assert.throws(() => packageMap(repository), /packages\/acme\/package.json has no description/);
  });

  test("a stale section is reported, and rewritten only on write", () => {
    const dir = fakeRepository({});
    const file = join(dir, "doc.md");
    const markers = { start: "<!-- s -->", end: "<!-- e -->" };
    writeFileSync(file, "before\n<!-- s -->\nold\n<!-- e -->\nafter\n");
    assert.deepEqual(updateSections([file], { ...markers, content: "new", mode: "check" }), [file]);
    assert.match(readFileSync(file, "utf8"), /old/);
    updateSections([file], { ...markers, content: "new", mode: "write" });
    assert.equal(readFileSync(file, "utf8"), "before\n<!-- s -->\nnew\n<!-- e -->\nafter\n");
    assert.deepEqual(updateSections([file], { ...markers, content: "new", mode: "check" }), []);
    assert.throws(() => replaceSection("no markers", { ...markers, content: "x", file: "doc.md" }), /doc.md lacks/);
  });

  test("the README's opening names every runtime's provider and every bridge's framework", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const intro = readme.slice(0, readme.indexOf("\n## ")).replace(/\s+/g, " ").toLowerCase();
    const unnamed = readdirSync(join(root, "packages")).filter((dir) => {
      const manifest = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"));
      if (!["runtime", "bridge"].includes(packageKind(manifest))) return false;
      // The directory is the provider's or framework's name: "ai-sdk" is "AI SDK", "openai-agents" "OpenAI Agents".
      const spelled = new RegExp(dir.replace("-", "[ -]"));
      return !spelled.test(intro);
    });
    assert.deepEqual(unnamed, []);
  });
});
