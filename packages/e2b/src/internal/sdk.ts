import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";
import type { E2BSdkModule } from "./sdk-types.js";

/** What `E2BRuntimeOptions.sdk` takes: the module itself, or a function that loads it. */
export type E2BSdkSource = E2BSdkModule | (() => Promise<E2BSdkModule>);

/**
 * The loader of the `e2b` SDK: the injected module or loader when given, else
 * `import("e2b")`, the only runtime import of the SDK in the package. A
 * failure is `SDK_UNAVAILABLE` naming the package, the supported range (the
 * peer dependency range in package.json) and the likely cause.
 */
export function createE2BSdkLoader(source?: E2BSdkSource): SdkLoader<E2BSdkModule> {
  return createSdkLoader<E2BSdkModule>({
    provider: "e2b",
    adapterPackage: "@sandport/e2b",
    range: ">=2.0.0 <3",
    packages: [{ name: "e2b", load: () => import("e2b") }],
    requiredMembers: [
      "Sandbox.create",
      "Sandbox.connect",
      "Sandbox.kill",
      "Sandbox.getInfo",
      "Sandbox.pause",
      "Sandbox.list",
    ],
    node: ">=20.18.1 <21 || >=22",
    ...(source === undefined ? {} : { source }),
  });
}
