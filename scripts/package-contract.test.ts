// The rules that keep every barrel isolated (DESIGN §1), checked on the sources:
// one public barrel per package, vendor SDKs as optional peers pinned in
// devDependencies, loaded only from src/internal/ with `await import()`, and no
// provider importing another.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const packagesDir = fileURLToPath(new URL("../packages", import.meta.url));
const NOT_PROVIDERS = new Set(["core", "testkit", "sandport"]);
/** Entry points beyond the one barrel, by package: core's adapter kit, the testkit's one entry per concern. */
const EXTRA_ENTRIES: Record<string, string[]> = {
  core: ["./adapter"],
  testkit: ["./conformance", "./fakes", "./assertions", "./emulators", "./emulators/*"],
};

interface Manifest {
  name: string;
  private?: boolean;
  type?: string;
  sideEffects?: boolean;
  files?: string[];
  engines?: { node?: string };
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const packages = readdirSync(packagesDir).map((dir) => ({
  dir,
  root: join(packagesDir, dir),
  manifest: JSON.parse(readFileSync(join(packagesDir, dir, "package.json"), "utf8")) as Manifest,
}));
const providers = packages.filter((pkg) => !NOT_PROVIDERS.has(pkg.dir));
const vendorSdks = [...new Set(packages.flatMap((pkg) => Object.keys(pkg.manifest.peerDependencies ?? {})))];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every module specifier in a file, with how it is imported. */
function importsOf(file: string): { specifier: string; kind: "static" | "type" | "dynamic" | "require" }[] {
  const text = readFileSync(file, "utf8");
  const found: { specifier: string; kind: "static" | "type" | "dynamic" | "require" }[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?\sfrom\s+["']([^"']+)["']/gms)) {
    found.push({ specifier: match[3] as string, kind: match[2] ? "type" : "static" });
  }
  for (const match of text.matchAll(/^\s*import\s+["']([^"']+)["']/gm))
    found.push({ specifier: match[1] as string, kind: "static" });
  for (const match of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) {
    found.push({ specifier: match[1] as string, kind: "dynamic" });
  }
  for (const match of text.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)) {
    found.push({ specifier: match[1] as string, kind: "require" });
  }
  return found;
}

const isVendor = (specifier: string) => vendorSdks.some((sdk) => specifier === sdk || specifier.startsWith(`${sdk}/`));
const isTest = (file: string) => file.endsWith(".test.ts");
/** `@sandport/<name>` or one of its subpaths. */
const isPackage = (specifier: string, name: string) =>
  specifier === `@sandport/${name}` || specifier.startsWith(`@sandport/${name}/`);
/** The names a module exports (`export { a, type B } from`, `export class C`, ...). */
function exportedNames(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const names: string[] = [];
  for (const match of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const part of (match[1] as string).split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)
        .at(-1)
        ?.trim();
      if (name) names.push(name);
    }
  }
  for (const match of text.matchAll(/^export\s+(?:declare\s+)?(?:const|function|class|interface|type)\s+(\w+)/gm)) {
    names.push(match[1] as string);
  }
  return names;
}

describe("package contract", () => {
  test("there is at least one provider package with a vendor SDK (the checks below are not vacuous)", () => {
    assert.ok(vendorSdks.length > 0);
  });

  for (const { dir, root, manifest } of packages) {
    test(`${manifest.name}: one public barrel, ESM+CJS, dist only, Node >= 20, side-effect free`, () => {
      const subpaths = Object.keys(manifest.exports ?? {}).filter((key) => key !== "./package.json");
      if (dir !== "sandport") {
        const allowed = [".", ...(EXTRA_ENTRIES[dir] ?? [])];
        assert.deepEqual(subpaths, allowed, `${manifest.name} must expose exactly ${allowed.join(", ")}`);
      }
      for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
        if (subpath === "./package.json") continue;
        for (const kind of ["import", "require"]) {
          const condition = (conditions as Record<string, Record<string, string>>)[kind];
          assert.ok(condition, `${manifest.name} ${subpath} lacks ${kind}`);
          assert.equal(
            Object.keys(condition)[0],
            "types",
            `${manifest.name} ${subpath} ${kind}: types must come first`,
          );
        }
      }
      assert.deepEqual(manifest.files, ["dist"]);
      assert.equal(manifest.sideEffects, false);
      assert.equal(manifest.type, "module");
      assert.equal(manifest.engines?.node, ">=20");
      assert.ok(!manifest.private, `${manifest.name} is public`);
      assert.ok(root);
    });
  }

  for (const { root, manifest } of providers) {
    test(`${manifest.name}: vendor SDK is an optional peer, pinned as a devDependency`, () => {
      for (const sdk of Object.keys(manifest.peerDependencies ?? {})) {
        assert.equal(manifest.peerDependenciesMeta?.[sdk]?.optional, true, `${sdk} must be an optional peer`);
        assert.match(
          manifest.devDependencies?.[sdk] ?? "",
          /^\d+\.\d+\.\d+$/,
          `${sdk} must be pinned in devDependencies`,
        );
        assert.equal(manifest.dependencies?.[sdk], undefined, `${sdk} must not be a dependency`);
      }
      const runtimeDeps = Object.keys(manifest.dependencies ?? {});
      assert.deepEqual(runtimeDeps, ["@sandport/core"], `${manifest.name} may depend on @sandport/core only`);
    });

    test(`${manifest.name}: the SDK is loaded lazily from src/internal/ only, and no other provider is imported`, () => {
      const problems: string[] = [];
      for (const file of sourceFiles(join(root, "src"))) {
        const where = relative(root, file);
        for (const { specifier, kind } of importsOf(file)) {
          if (isVendor(specifier) && kind !== "type" && !isTest(file)) {
            if (!where.startsWith("src/internal/")) problems.push(`${where} loads ${specifier} outside src/internal/`);
            else if (kind !== "dynamic") problems.push(`${where} loads ${specifier} with a ${kind} import`);
          }
          if (specifier.startsWith("@sandport/") && !isPackage(specifier, "core")) {
            if (!(isTest(file) && isPackage(specifier, "testkit"))) problems.push(`${where} imports ${specifier}`);
          }
        }
      }
      assert.deepEqual(problems, []);
    });
  }

  for (const { dir, root, manifest } of providers) {
    test(`${manifest.name}: the barrel exports <P>Runtime, <P>RuntimeOptions, <P>Handle and ${dir}Capabilities`, () => {
      const names = exportedNames(join(root, "src", "index.ts"));
      const prefix = names.map((name) => /^(\w+)Runtime$/.exec(name)?.[1]).find((found) => found !== undefined);
      assert.equal(prefix?.toLowerCase(), dir, `${manifest.name} exports no <P>Runtime class named after ${dir}`);
      for (const name of [`${prefix}Runtime`, `${prefix}RuntimeOptions`, `${prefix}Handle`, `${dir}Capabilities`]) {
        assert.ok(names.includes(name), `${manifest.name} must export ${name}`);
      }
    });

    test(`${manifest.name}: the SDK loader's range is the peer dependency range; no src/testing/`, () => {
      assert.ok(!existsSync(join(root, "src", "testing")), "test scaffolding lives in @sandport/testkit or test/");
      const peers = Object.entries(manifest.peerDependencies ?? {});
      if (peers.length === 0) return;
      const loader = readFileSync(join(root, "src", "internal", "sdk.ts"), "utf8");
      const ranges = [...loader.matchAll(/\brange:\s*"([^"]+)"/g)].map((match) => match[1]);
      assert.ok(ranges.length > 0, "src/internal/sdk.ts names its range as a string literal");
      for (const [sdk, range] of peers) {
        assert.ok(loader.includes(`name: "${sdk}"`), `src/internal/sdk.ts loads "${sdk}" by name`);
        assert.deepEqual([...new Set(ranges)], [range], `the loader's range must be the peer range of ${sdk}`);
      }
    });
  }

  test("core names no vendor SDK and no provider", () => {
    const core = packages.find((pkg) => pkg.dir === "core");
    assert.ok(core);
    const problems = sourceFiles(join(core.root, "src")).flatMap((file) =>
      importsOf(file)
        .filter(
          ({ specifier }) =>
            isVendor(specifier) ||
            (specifier.startsWith("@sandport/") &&
              !isPackage(specifier, "core") &&
              !(isTest(file) && isPackage(specifier, "testkit"))),
        )
        .map(({ specifier }) => `${relative(core.root, file)} imports ${specifier}`),
    );
    assert.deepEqual(problems, []);
  });
});
