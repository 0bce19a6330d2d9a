import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CliError } from "./cli-error.js";

/**
 * The umbrella package's package.json, found by walking up from `moduleUrl`
 * (the built CLI lives in its `dist/`). Its dependencies list the providers.
 */
export function findManifest(moduleUrl: string): string {
  let directory = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    const candidate = join(directory, "package.json");
    if (
      existsSync(candidate) &&
      (JSON.parse(readFileSync(candidate, "utf8")) as { name?: unknown }).name === "sandport"
    ) {
      return candidate;
    }
    const parent = dirname(directory);
    if (parent === directory)
      throw new CliError("DESCRIPTOR_INVALID", "cannot find the sandport package's package.json");
    directory = parent;
  }
}
