import { readdirSync } from "node:fs";
import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.base.js";

// One entry per generated barrel file; see scripts/generate-umbrella.mjs. Each is built on its own:
// bundled together, the declaration bundler makes every barrel's types import every other package,
// so `sandport/core`'s types would pull in the test kit's.
// Tests and their fixtures are never entries.
const entries = readdirSync("src").filter(
  (file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.endsWith(".fixture.ts"),
);

// The `sandport` command: ESM only and not an import entry (no types). Each command is a chunk of its own
// under dist/cli/, loaded when that command runs; the conformance suite and its reporter are separate
// entries because `canary` runs them in a child `node --test`.
const cli = packageBuild({
  entry: {
    cli: "src/cli/main.ts",
    "cli/conformance-suite": "src/cli/canary/conformance-suite.ts",
    "cli/conformance-reporter": "src/cli/canary/conformance-reporter.ts",
  },
  format: ["esm"],
  dts: false,
  splitting: true,
  external: [/^@sandport\//],
  clean: false,
  esbuildOptions(options) {
    options.chunkNames = "cli/[name]-[hash]";
  },
});

export default defineConfig([
  ...entries.map((file) =>
    packageBuild({
      entry: [`src/${file}`],
      // Every barrel re-exports a workspace package: keep them as imports, never inline them.
      external: [/^@sandport\//],
      treeshake: false,
      clean: false,
    }),
  ),
  cli,
]);
