import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { CliError } from "../cli-error.js";
import { type AdapterManifest, type ProviderDescriptor, parseDescriptor } from "./descriptor.js";

/** The umbrella package's manifest, as far as the registry reads it. */
export interface UmbrellaManifest {
  readonly dependencies?: Readonly<Record<string, string>>;
}

/**
 * Every installed provider, found the way the umbrella generator finds
 * packages: each `@sandport/*` dependency of the umbrella is read (its
 * package.json only; nothing is imported), and those with a `"sandport"`
 * descriptor are providers. An adapter joins by shipping a descriptor; the CLI
 * never names one. Sorted by provider name.
 */
export function findProviders(umbrellaManifestPath: string): ProviderDescriptor[] {
  const umbrella = readJson(umbrellaManifestPath) as UmbrellaManifest;
  const require = createRequire(umbrellaManifestPath);
  const found: ProviderDescriptor[] = [];
  for (const name of Object.keys(umbrella.dependencies ?? {})) {
    if (!name.startsWith("@sandport/")) continue;
    let manifestPath: string;
    try {
      manifestPath = require.resolve(`${name}/package.json`);
    } catch (error) {
      throw new CliError("DESCRIPTOR_INVALID", `${name} is a dependency of sandport but is not installed`, {
        cause: error,
      });
    }
    const descriptor = parseDescriptor(readJson(manifestPath) as AdapterManifest, manifestPath);
    if (descriptor) found.push(descriptor);
  }
  return found.sort((a, b) => a.provider.localeCompare(b.provider));
}

/** The providers a command works on: the one `--provider` names, or all when it is absent. */
export function selectProviders(all: readonly ProviderDescriptor[], wanted: string | undefined): ProviderDescriptor[] {
  if (wanted === undefined) return [...all];
  const match = all.find((descriptor) => descriptor.provider === wanted);
  if (!match) {
    throw new CliError(
      "UNKNOWN_PROVIDER",
      `no provider "${wanted}"; installed: ${all.map((descriptor) => descriptor.provider).join(", ") || "none"}`,
    );
  }
  return [match];
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}
