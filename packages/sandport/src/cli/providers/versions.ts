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
