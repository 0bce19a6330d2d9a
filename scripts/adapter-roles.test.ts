// What every remote adapter (a provider package with a vendor SDK peer) is made
// of: the same role in a file of the same name, the shared meanings taken from the
// adapter kit rather than written again, and no import circle. `docs/adapters.md`
// describes the same layout; this keeps the two honest.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const packagesDir = fileURLToPath(new URL("../packages", import.meta.url));

interface Manifest {
  name: string;
  peerDependencies?: Record<string, string>;
  sandport?: { kind?: "bridge" };
}

/** Provider packages with a vendor SDK peer: the remote adapters. */
const adapters = readdirSync(packagesDir)
  .map((dir) => ({ dir, root: join(packagesDir, dir) }))
  .filter(({ root }) => existsSync(join(root, "package.json")))
  .map((pkg) => ({ ...pkg, manifest: JSON.parse(readFileSync(join(pkg.root, "package.json"), "utf8")) as Manifest }))
  .filter(({ dir, manifest }) => {
    if (["core", "testkit", "sandport"].includes(dir) || manifest.sandport?.kind === "bridge") return false;
    return Object.keys(manifest.peerDependencies ?? {}).some((name) => !name.startsWith("@sandport/"));
  });

/** Files every remote adapter has, by role. `<p>` is the package's folder name. */
const REQUIRED = [
  "index.ts",
  "<p>-runtime.ts",
  "options.ts",
  "capabilities.ts",
  "errors.ts",
  "handle.ts",
  "context.ts",
  "launch.ts",
  "lifecycle.ts",
  "lookup.ts",
  "exec.ts",
  "files.ts",
  "internal/sdk.ts",
  "internal/sdk-types.ts",
];

/** Older names of a role, and names of jobs the kit now does: none may come back. */
const RETIRED = [
  "stream.ts",
  "restart.ts",
  "markers.ts",
  "port-endpoint.ts",
  "run-helper.ts",
  "command-run.ts",
  "remote-command.ts",
  "run-command.ts",
];

/** Which file holds the port method (or kit role) a source exports as a function. */
const HOME_OF: Readonly<Record<string, string>> = {
  launch: "launch.ts",
  launchDetached: "launch.ts",
  destroy: "lifecycle.ts",
  stop: "lifecycle.ts",
  start: "lifecycle.ts",
  getById: "lookup.ts",
  findByLabels: "lookup.ts",
  exec: "exec.ts",
  execStream: "exec.ts",
  readFile: "files.ts",
  writeFiles: "files.ts",
  spawn: "spawn.ts",
  startCommand: "async-commands.ts",
  commandStatus: "async-commands.ts",
  commandLogs: "async-commands.ts",
  listDir: "file-ops.ts",
  stat: "file-ops.ts",
  mkdir: "file-ops.ts",
  remove: "file-ops.ts",
  portEndpoint: "ports.ts",
  runScript: "run-script.ts",
};

/** Meanings the kit holds once; an adapter that writes them again has drifted from it. */
const KIT_ONLY: readonly [RegExp, string][] = [
  [
    /\btype\s+StopReason\b|\b(?:#|_)stopReason\b|#stopped\b/,
    "its own stop reasons (the kit's command engine holds them)",
  ],
  // A vendor fact fed to the kit (Vercel's "ended by its own timeout") is fine; a rule over stop reasons or a missing code is the kit's.
  [
    /\btimedOut:\s*[^,\n}]*(?:stop(?:ped|Reason)\b|[Cc]ode\s*===\s*null)/,
    "its own timedOut rule (the kit's commandResult is the rule)",
  ],
  [/\bKILL_(?:TIMEOUT|DEADLINE|GRACE)_MS\s*=/, "its own kill deadline (KILL_DEADLINE_MS)"],
  [/\bVERIFY_MARGIN(?:_MS)?\s*=/, "its own verify margin (destroyVerified holds it)"],
  [
    /\b(?:EXEC_MARKER_ENV|SESSION_ENV|COMMAND_ENV|RESERVED_ENV)\s*=|"SANDPORT_(?:EXEC|SESSION|COMMAND)_ID"/,
    "its own marker constant (from @sandport/core)",
  ],
  [/\brunHelper\b/, "a helper-script runner not named runScript"],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".fixture.ts")
      ? [path]
      : [];
  });
}

/** Relative imports of a file, resolved to source paths (`./x.js` → `x.ts`). */
function localImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?[^;]*?\sfrom\s+["'](\.[^"']+)["']/gms)) {
    if (match[1]) continue; // a type-only import leaves nothing at run time
    found.push(resolve(dirname(file), (match[2] as string).replace(/\.js$/, ".ts")));
  }
  return found;
}

/** One circle in the import graph of `files`, or `undefined`. */
function findCircle(files: readonly string[]): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === "done") return undefined;
    if (state.get(file) === "open") return [...stack.slice(stack.indexOf(file)), file];
    state.set(file, "open");
    stack.push(file);
    for (const next of localImports(file).filter((path) => files.includes(path))) {
      const circle = visit(next);
      if (circle) return circle;
    }
    stack.pop();
    state.set(file, "done");
    return undefined;
  };
  for (const file of files) {
    const circle = visit(file);
    if (circle) return circle;
  }
  return undefined;
}

describe("adapter roles", () => {
  test("there are remote adapters to check (the checks below are not vacuous)", () => {
    assert.ok(adapters.length >= 6, `found ${adapters.map(({ dir }) => dir).join(", ")}`);
  });

  for (const { dir, root, manifest } of adapters) {
    const src = join(root, "src");
    const files = sourceFiles(src);
    const named = files.map((file) => relative(src, file));

    test(`${manifest.name}: every role's file is there, under its name, and no retired name is`, () => {
      const missing = REQUIRED.map((name) => name.replace("<p>", dir)).filter((name) => !named.includes(name));
      assert.deepEqual(missing, [], "required role files");
      assert.deepEqual(
        named.filter((name) => RETIRED.includes(name)),
        [],
        "retired file names",
      );
    });

    test(`${manifest.name}: each port method and kit role is exported from its role's file`, () => {
      const misplaced: string[] = [];
      for (const file of files) {
        const name = relative(src, file);
        const text = readFileSync(file, "utf8");
        for (const match of text.matchAll(/^export\s+(?:async\s+)?function\s*\*?\s*([A-Za-z0-9_]+)/gm)) {
          const home = HOME_OF[match[1] as string];
          if (home !== undefined && home !== name) misplaced.push(`${match[1]} is in ${name}, not ${home}`);
        }
        if (/^export\s+function\s+\w+\([^)]*\)\s*:\s*VendorCommand\b/ms.test(text) && name !== "vendor-command.ts") {
          misplaced.push(`a VendorCommand is made in ${name}, not vendor-command.ts`);
        }
      }
      assert.deepEqual(misplaced, []);
    });

    test(`${manifest.name}: no stop reasons, timedOut rule, kill deadline, verify margin or marker of its own`, () => {
      const drifted = files.flatMap((file) =>
        KIT_ONLY.filter(([pattern]) => pattern.test(readFileSync(file, "utf8"))).map(
          ([, what]) => `${relative(src, file)} defines ${what}`,
        ),
      );
      assert.deepEqual(drifted, []);
    });

    test(`${manifest.name}: no import circle`, () => {
      const circle = findCircle(files);
      assert.equal(circle?.map((file) => relative(src, file)).join(" → "), undefined);
    });
  }
});
