import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { ProviderDescriptor } from "./descriptor.js";

/** One vendor SDK an adapter loads, and what is installed of it. */
export interface SdkInstallation {
  /** npm name. */
  readonly name: string;
  /** The range the adapter supports (its peer dependency range). */
  readonly range: string;
  /** The installed version the adapter would load, or `undefined` when none is installed. */
  readonly version: string | undefined;
  /** The Node versions the installed SDK declares it needs (`engines.node`), if it says. */
  readonly node: string | undefined;
}

/**
 * The SDKs an adapter loads and their installed versions, found the way the
 * adapter's own `import()` would: from the adapter package's directory up
 * through every `node_modules`. Reads package.json files only; loads nothing.
 */
export function installedSdks(descriptor: ProviderDescriptor): SdkInstallation[] {
  const require = createRequire(descriptor.manifestPath);
  return Object.entries(descriptor.sdks).map(([name, range]) => {
    for (const directory of require.resolve.paths(name) ?? []) {
      const manifest = join(directory, name, "package.json");
      if (!existsSync(manifest)) continue;
      const { version, engines } = JSON.parse(readFileSync(manifest, "utf8")) as {
        version?: unknown;
        engines?: { node?: unknown };
      };
      return {
        name,
        range,
        version: typeof version === "string" ? version : undefined,
        node: typeof engines?.node === "string" ? engines.node : undefined,
      };
    }
    return { name, range, version: undefined, node: undefined };
  });
}

/** One SDK the adapter needs, under one or several package names, and what is installed of each. */
export interface SdkRequirement {
  /** Its package names, in the order the adapter tries them (one, unless the SDK is published under several). */
  readonly names: readonly string[];
  /** What is installed under each name, in the same order. */
  readonly installations: readonly SdkInstallation[];
  /** The installation the adapter would load: the first name installed, or `undefined` when none is. */
  readonly loaded: SdkInstallation | undefined;
}

/**
 * The SDKs an adapter needs, each once: a group of `sdkAlternatives` is one
 * requirement that any of its names satisfies, in the order of the peer dependencies.
 */
export function sdkRequirements(descriptor: ProviderDescriptor): SdkRequirement[] {
  const installed = new Map(installedSdks(descriptor).map((sdk) => [sdk.name, sdk]));
  const requirements: SdkRequirement[] = [];
  const covered = new Set<string>();
  for (const name of Object.keys(descriptor.sdks)) {
    if (covered.has(name)) continue;
    const names = descriptor.sdkAlternatives.find((group) => group.includes(name)) ?? [name];
    for (const member of names) covered.add(member);
    const installations = names.map((member) => installed.get(member)!);
    const loaded = installations.find((sdk) => sdk.version !== undefined);
    requirements.push({ names, installations, loaded });
  }
  return requirements;
}
