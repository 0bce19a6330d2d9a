#!/usr/bin/env node
// Packed-package smoke test: pack every public package, install the
// tarballs into an empty scratch project with peers omitted, assert that no
// vendor SDK got installed, then import every entry point (each package's
// exports map, `*` patterns expanded to the built files) with ESM `import` and
// CJS `require`, each in its own fresh node process; run `npx sandport --help` and
// `npx sandport capabilities --json` there; compile a TypeScript
// consumer without @types/node against the packed types; check that the
// umbrella offers the test kit only as an optional peer. Fails naming what broke.
// Needs a prior `pnpm build`.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const packagesDir = join(root, "packages");
const scratch = mkdtempSync(join(tmpdir(), "sandport-smoke-"));
const keep = process.argv.includes("--keep");
const failures = [];
/** Entries that export types only: they must import, with nothing to find at run time. */
const TYPE_ONLY_ENTRIES = new Set(["@sandport/testkit/emulators"]);

/**
 * Every import specifier a package's exports map offers: `name` for ".", `name/sub` for
 * "./sub", and for a pattern ("./emulators/*") one specifier per built file it matches.
 */
function entrySpecifiers(dir, manifest) {
  const specifiers = [];
  for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
    if (subpath === "./package.json") continue;
    if (!subpath.includes("*")) {
      specifiers.push(subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`);
      continue;
    }
    const target = conditions.import.default; // e.g. ./dist/emulators/*.js
    const [prefix, suffix] = target.split("*");
    const folder = join(dir, prefix);
    for (const file of existsSync(folder) ? readdirSync(folder) : []) {
      if (!file.endsWith(suffix)) continue;
      specifiers.push(`${manifest.name}/${subpath.slice(2).replace("*", file.slice(0, -suffix.length))}`);
    }
  }
  return specifiers;
}

function fail(message) {
  failures.push(message);
  console.error(`✖ ${message}`);
}

try {
  const manifests = readdirSync(packagesDir)
    .map((dir) => ({
      dir: join(packagesDir, dir),
      manifest: JSON.parse(readFileSync(join(packagesDir, dir, "package.json"), "utf8")),
    }))
    .filter(({ manifest }) => !manifest.private);
  const vendorSdks = [
    ...new Set(manifests.flatMap(({ manifest }) => Object.keys(manifest.peerDependencies ?? {}))),
  ].filter((name) => !name.startsWith("@sandport/"));

  // 1. Pack (pnpm rewrites workspace: ranges into real versions).
  const tarballs = new Map();
  const packDir = join(scratch, "tarballs");
  mkdirSync(packDir);
  for (const { dir, manifest } of manifests) {
    if (!existsSync(join(dir, "dist"))) throw new Error(`${manifest.name} has no dist/: run \`pnpm build\` first`);
    const before = new Set(readdirSync(packDir));
    execFileSync("pnpm", ["pack", "--pack-destination", packDir], { cwd: dir, stdio: "pipe" });
    const tarball = readdirSync(packDir).find((file) => !before.has(file));
    tarballs.set(manifest.name, join(packDir, tarball));
  }
  console.log(`packed ${[...tarballs.keys()].join(", ")}`);

  // 2. Install into an empty project, peers omitted; overrides pin every @sandport package to its tarball.
  const project = join(scratch, "project");
  mkdirSync(project);
  const fileSpecs = Object.fromEntries([...tarballs].map(([name, path]) => [name, `file:${path}`]));
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "smoke", private: true, dependencies: fileSpecs, overrides: fileSpecs }, null, 2),
  );
  execFileSync("npm", ["install", "--omit=peer", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], {
    cwd: project,
    stdio: "inherit",
  });

  // 3. No vendor SDK may have arrived.
  for (const sdk of vendorSdks) {
    if (existsSync(join(project, "node_modules", sdk)))
      fail(`vendor SDK ${sdk} was installed although peers were omitted`);
  }

  // 4. Import every entry point, ESM and CJS, each in a fresh process.
  const barrels = new Set(manifests.flatMap(({ dir, manifest }) => entrySpecifiers(dir, manifest)));
  const umbrella = manifests.find(({ manifest }) => manifest.name === "sandport")?.manifest;
  for (const barrel of barrels) {
    const check = TYPE_ONLY_ENTRIES.has(barrel) ? "" : `if (!Object.keys(m).length) throw new Error("no exports");`;
    const probes = {
      esm: ["--input-type=module", "-e", `const m = await import(${JSON.stringify(barrel)}); ${check}`],
      cjs: ["-e", `const m = require(${JSON.stringify(barrel)}); ${check}`],
    };
    for (const [kind, args] of Object.entries(probes)) {
      const run = spawnSync(process.execPath, args, { cwd: project, encoding: "utf8" });
      if (run.status !== 0) fail(`${kind} import of ${barrel} failed:\n${run.stderr.trim()}`);
    }
  }
  console.log(`imported ${barrels.size} entry points as ESM and CJS: ${[...barrels].join(", ")}`);

  // 5. The `sandport` command runs from the scratch project, no SDK installed: its help, and the capability
  //    table of every provider (built for inspection, which loads no SDK).
  const npx = (args) =>
    spawnSync("npx", ["--no-install", "sandport", ...args], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
  const help = npx(["--help"]);
  if (help.status !== 0 || !/^Usage: sandport /m.test(help.stdout)) {
    fail(`npx sandport --help failed (exit ${help.status}):\n${help.stdout}${help.stderr}`);
  }
  const listing = npx(["capabilities", "--json"]);
  let providers = [];
  try {
    providers = JSON.parse(listing.stdout).providers.map((entry) => entry.provider);
  } catch {
    // Reported below.
  }
  const adapters = manifests
    // Providers describe a runtime; framework bridges (`"kind": "bridge"`) are not providers.
    .filter(({ manifest }) => manifest.sandport !== undefined && manifest.sandport.kind !== "bridge")
    .map(({ manifest }) => manifest.name.slice("@sandport/".length))
    .sort();
  if (listing.status !== 0 || JSON.stringify(providers) !== JSON.stringify(adapters)) {
    fail(
      `npx sandport capabilities --json (exit ${listing.status}) listed ${providers} instead of ${adapters}:\n${listing.stderr}`,
    );
  } else {
    console.log(`npx sandport --help and capabilities --json ran without any SDK: ${providers.join(", ")}`);
  }

  // 6. A TypeScript consumer without @types/node, checking every .d.ts it reaches (skipLibCheck off),
  //    compiles with the one lib line the README gives.
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        lib: ["es2022", "esnext.disposable", "dom"],
        types: [],
        skipLibCheck: false,
        noEmit: true,
      },
      files: ["consumer.ts"],
    }),
  );
  writeFileSync(
    join(project, "consumer.ts"),
    [
      'import { SandboxOrchestrator, type SandboxSession } from "sandport/core";',
      'import { LocalRuntime } from "sandport/local";',
      'const orchestrator = new SandboxOrchestrator(new LocalRuntime({ root: "/tmp/sandport-consumer" }));',
      "export async function main(): Promise<boolean> {",
      "  await using session: SandboxSession = await orchestrator.session({});",
      '  const result = await orchestrator.run({ launch: {}, steps: [{ argv: ["true"] }] });',
      "  return result.ok && session.id !== '';",
      "}",
      "",
    ].join("\n"),
  );
  const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", project], {
    cwd: project,
    encoding: "utf8",
  });
  if (tsc.status !== 0) fail(`a TypeScript consumer without @types/node does not compile:\n${tsc.stdout}${tsc.stderr}`);
  else console.log("a TypeScript consumer without @types/node compiles against sandport/core and sandport/local");

  // 7. The umbrella does not make production installs carry the test kit.
  if (umbrella?.dependencies?.["@sandport/testkit"] !== undefined) fail("sandport depends on @sandport/testkit");
  if (umbrella?.peerDependenciesMeta?.["@sandport/testkit"]?.optional !== true) {
    fail("sandport must offer @sandport/testkit as an optional peer");
  }
} finally {
  if (keep) console.log(`scratch project kept at ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`smoke test failed: ${failures.length} problem(s)`);
  process.exit(1);
}
console.log("smoke test passed: no vendor SDK installed, every entry point imports as ESM and CJS");
