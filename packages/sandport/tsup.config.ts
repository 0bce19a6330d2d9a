import { readdirSync } from "node:fs";
import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.base.js";

export default defineConfig(
  packageBuild({
    // One entry per generated barrel file; see scripts/generate-umbrella.mjs.
    entry: readdirSync("src")
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
      .map((file) => `src/${file}`),
    // Every barrel re-exports a workspace package: keep them as imports, never inline them.
    external: [/^@sandport\//],
    treeshake: false,
  }),
);
