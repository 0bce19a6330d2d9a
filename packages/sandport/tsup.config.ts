import { readdirSync } from "node:fs";
import { defineConfig } from "tsup";

// One entry per generated barrel file; see scripts/generate-umbrella.mjs.
const entry = readdirSync("src")
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
  .map((file) => `src/${file}`);

export default defineConfig({
  entry,
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  // Keep "node:" specifiers: "node:test" has no bare form.
  removeNodeProtocol: false,
  // Every barrel re-exports a workspace package: keep them as imports, never inline them.
  external: [/^@sandport\//],
});
