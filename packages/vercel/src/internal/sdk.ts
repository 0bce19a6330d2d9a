import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";
import type { VercelSdkModule } from "./sdk-types.js";

/** What `VercelRuntimeOptions.sdk` takes: the module itself, or a function that loads one. */
export type VercelSdkSource = VercelSdkModule | (() => Promise<VercelSdkModule>);

/**
 * The loader of the `@vercel/sandbox` SDK: the injected module or loader when
 * given, else `import("@vercel/sandbox")`, the only runtime import of the SDK
 * in the package. A failure is `SDK_UNAVAILABLE` naming the package, the
 * supported range (the peer dependency range in package.json) and the likely cause.
 */
export function createVercelSdkLoader(source?: VercelSdkSource): SdkLoader<VercelSdkModule> {
  return createSdkLoader<VercelSdkModule>({
    provider: "vercel",
    adapterPackage: "@sandport/vercel",
    range: ">=3.0.0 <4",
    packages: [{ name: "@vercel/sandbox", load: () => import("@vercel/sandbox") }],
    requiredMembers: ["Sandbox.create", "Sandbox.get", "Sandbox.list"],
    node: ">=20.18.1",
    ...(source === undefined ? {} : { source }),
  });
}
