import { readdirSync } from "node:fs";
import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.base.js";

// One entry per generated barrel file; see scripts/generate-umbrella.mjs. Each is built on its own:
// bundled together, the declaration bundler makes every barrel's types import every other package,
// so `sandport/core`'s types would pull in the test kit's.
const entries = readdirSync("src").filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"));

export default defineConfig(
  entries.map((file) =>
    packageBuild({
      entry: [`src/${file}`],
      // Every barrel re-exports a workspace package: keep them as imports, never inline them.
      external: [/^@sandport\//],
      treeshake: false,
      clean: false,
    }),
  ),
);
