// The rules that keep every barrel isolated, checked on the sources: the declared
// entry points of each package, vendor SDKs as optional peers pinned in
// devDependencies, loaded only from src/internal/ with `await import()` through
// a loader whose range is the peer range, no provider importing another, the
// same export names in every provider barrel, and test scaffolding named one way
// (`<topic>.fixture.ts` beside the tests that use it, imported only by tests and other
// fixtures) and never in a package's dist/.
// Framework bridges (`"sandport": { "kind": "bridge" }` in package.json) follow the
// same rules about peers and imports; they export no runtime, and may load more
// than one framework package, each through its own loader.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const packagesDir = fileURLToPath(new URL("../packages", import.meta.url));
const NOT_PROVIDERS = new Set(["core", "testkit", "sandport"]);

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
  sandport?: { kind?: "bridge" };
}

const packages = readdirSync(packagesDir).map((dir) => ({
  dir,
  root: join(packagesDir, dir),
  manifest: JSON.parse(readFileSync(join(packagesDir, dir, "package.json"), "utf8")) as Manifest,
}));
const bridges = packages.filter((pkg) => pkg.manifest.sandport?.kind === "bridge");
const providers = packages.filter((pkg) => !NOT_PROVIDERS.has(pkg.dir) && !bridges.includes(pkg));
const vendorSdks = [...new Set(packages.flatMap((pkg) => Object.keys(pkg.manifest.peerDependencies ?? {})))].filter(
  (name) => !name.startsWith("@sandport/"),
);

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

/** The entry points each package may expose, besides its root (and the umbrella's generated ones). */
const EXTRA_ENTRIES: Readonly<Record<string, readonly string[]>> = {
  core: ["./adapter"],
  testkit: ["./conformance", "./faults", "./fakes", "./assertions", "./emulators", "./emulators/*"],
};

/** Names exported by a barrel's source (`export { A, type B }`, `export class C`, `export type { D }`). */
function exportedNames(file: string): Set<string> {
  const text = readFileSync(file, "utf8");
  const names = new Set<string>();
  for (const match of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gms)) {
    for (const part of (match[1] as string).split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name) names.add(name);
    }
  }
  for (const match of text.matchAll(
    /^export\s+(?:declare\s+)?(?:class|function|const|interface|type)\s+([A-Za-z0-9_]+)/gm,
  )) {
    names.add(match[1] as string);
  }
  return names;
}

/** Directories named `testing` under a source tree. */
function testingDirectories(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (!entry.isDirectory()) return [];
    const path = join(dir, entry.name);
    return entry.name === "testing" ? [path, ...testingDirectories(path)] : testingDirectories(path);
  });
}

const isVendor = (specifier: string) => vendorSdks.some((sdk) => specifier === sdk || specifier.startsWith(`${sdk}/`));
const isTest = (file: string) => file.endsWith(".test.ts");
const isFixture = (file: string) => file.endsWith(".fixture.ts");
/** Names test scaffolding had before it was `<topic>.fixture.ts`: `test-support.ts`, `test-sdk.ts`, `test-fixtures.ts`, `x.fixtures.ts`. */
const isOffConventionScaffolding = (name: string) =>
  name.endsWith(".ts") && !name.endsWith(".test.ts") && (/^test[-_.]/.test(name) || /[-.]fixtures\.ts$/.test(name));

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

describe("package contract", () => {
  test("there is at least one provider package with a vendor SDK (the checks below are not vacuous)", () => {
    assert.ok(vendorSdks.length > 0);
  });

  for (const { dir, root, manifest } of packages) {
    test(`${manifest.name}: one public barrel, ESM+CJS, dist only, Node >= 20, side-effect free`, () => {
      const subpaths = Object.keys(manifest.exports ?? {}).filter((key) => key !== "./package.json");
      if (dir !== "sandport") {
        assert.deepEqual(subpaths, [".", ...(EXTRA_ENTRIES[dir] ?? [])], `${manifest.name}'s entry points`);
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

  for (const { root, manifest } of [...providers, ...bridges]) {
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
          if (specifier.startsWith("@sandport/") && !specifier.startsWith("@sandport/core")) {
            const testkit = specifier === "@sandport/testkit" || specifier.startsWith("@sandport/testkit/");
            if (!(isTest(file) && testkit)) problems.push(`${where} imports ${specifier}`);
          }
        }
      }
      assert.deepEqual(problems, []);
    });
  }

  for (const { root, manifest } of providers) {
    test(`${manifest.name}: the barrel exports <P>Runtime, <P>RuntimeOptions, <P>Handle and <p>Capabilities`, () => {
      const names = exportedNames(join(root, "src", "index.ts"));
      const runtimes = [...names].filter((name) => /^[A-Z][A-Za-z0-9]*Runtime$/.test(name));
      assert.equal(runtimes.length, 1, `one <P>Runtime class, found ${runtimes.join(", ") || "none"}`);
      const prefix = (runtimes[0] as string).slice(0, -"Runtime".length);
      const lower = prefix === prefix.toUpperCase() ? prefix.toLowerCase() : prefix[0]?.toLowerCase() + prefix.slice(1);
      for (const name of [`${prefix}Runtime`, `${prefix}RuntimeOptions`, `${prefix}Handle`, `${lower}Capabilities`]) {
        assert.ok(names.has(name), `${manifest.name} exports ${name}`);
      }
    });

    const peers = Object.entries(manifest.peerDependencies ?? {});
    if (peers.length === 0) continue;
    test(`${manifest.name}: the SDK loader's packages and range are the peer dependencies'`, () => {
      const loader = readFileSync(join(root, "src", "internal", "sdk.ts"), "utf8");
      assert.match(loader, /createSdkLoader(<[^>]*>)?\(/, "src/internal/sdk.ts builds its loader with createSdkLoader");
      const ranges = [...loader.matchAll(/\brange:\s*"([^"]+)"/g)].map((match) => match[1]);
      const names = [...loader.matchAll(/\bname:\s*"([^"]+)"/g)].map((match) => match[1]);
      assert.deepEqual(names.sort(), peers.map(([name]) => name).sort(), "one loader package per peer");
      for (const [name, range] of peers)
        assert.deepEqual(ranges, [range], `the loader's range is ${name}'s peer range`);
    });
  }

  // A bridge whose framework seam is a plain interface (imported as types only) has no loader.
  for (const { root, manifest } of bridges.filter((pkg) => existsSync(join(pkg.root, "src", "internal", "sdk.ts")))) {
    test(`${manifest.name}: each framework loader's range is that framework's peer range`, () => {
      const loader = readFileSync(join(root, "src", "internal", "sdk.ts"), "utf8");
      const blocks = loader.split(/createSdkLoader(?:<[^>]*>)?\(/).slice(1);
      assert.ok(blocks.length > 0, "src/internal/sdk.ts builds its loaders with createSdkLoader");
      const peers = manifest.peerDependencies ?? {};
      for (const block of blocks) {
        const range = /\brange:\s*"([^"]+)"/.exec(block)?.[1];
        for (const [, name] of block.matchAll(/\bname:\s*"([^"]+)"/g)) {
          assert.ok(name && name in peers, `${name} is loaded but is not a peer dependency`);
          assert.equal(range, peers[name as string], `the loader's range is ${name}'s peer range`);
        }
      }
    });
  }

  test("no package keeps test scaffolding in src/testing/", () => {
    const found = packages.flatMap(({ root }) =>
      testingDirectories(join(root, "src")).map((path) => relative(packagesDir, path)),
    );
    assert.deepEqual(found, []);
  });

  test("test scaffolding in src/ is named <topic>.fixture.ts, never test-*.ts or *-fixtures.ts", () => {
    const found = packages.flatMap(({ root }) =>
      sourceFiles(join(root, "src"))
        .filter((file) => isOffConventionScaffolding(file.slice(file.lastIndexOf("/") + 1)))
        .map((file) => relative(packagesDir, file)),
    );
    assert.deepEqual(found, []);
  });

  test("a fixture is imported only by tests and other fixtures, so no build entry can bundle it", () => {
    const problems = packages.flatMap(({ root }) =>
      sourceFiles(join(root, "src"))
        .filter((file) => !isTest(file) && !isFixture(file))
        .flatMap((file) =>
          importsOf(file)
            .filter(({ specifier }) => /\.fixture(\.js|\.ts)?$/.test(specifier))
            .map(({ specifier }) => `${relative(packagesDir, file)} imports ${specifier}`),
        ),
    );
    assert.deepEqual(problems, []);
  });

  test("no built dist/ holds a fixture, a test, or code from one (by file name and source map)", () => {
    const built = packages.filter(({ root }) => existsSync(join(root, "dist")));
    const problems: string[] = [];
    for (const { root } of built) {
      for (const file of filesUnder(join(root, "dist"))) {
        const where = relative(packagesDir, file);
        if (/\.(fixture|test)\./.test(file) || isOffConventionScaffolding(file.slice(file.lastIndexOf("/") + 1)))
          problems.push(where);
        if (!file.endsWith(".map")) continue;
        const map = JSON.parse(readFileSync(file, "utf8")) as { sources?: string[] };
        for (const source of map.sources ?? []) {
          if (/\.(fixture|test)\.ts$/.test(source)) problems.push(`${where} maps ${source}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  test("core names no vendor SDK and no provider; its tests may use the testkit's fakes and assertions", () => {
    const core = packages.find((pkg) => pkg.dir === "core");
    assert.ok(core);
    const allowedInTests = new Set(["@sandport/testkit/fakes", "@sandport/testkit/assertions"]);
    const problems = sourceFiles(join(core.root, "src")).flatMap((file) =>
      importsOf(file)
        .filter(({ specifier }) => {
          if (isVendor(specifier)) return true;
          if (!specifier.startsWith("@sandport/") || specifier === "@sandport/core") return false;
          return !(isTest(file) && allowedInTests.has(specifier));
        })
        .map(({ specifier }) => `${relative(core.root, file)} imports ${specifier}`),
    );
    assert.deepEqual(problems, []);
  });
});
