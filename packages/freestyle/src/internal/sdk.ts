import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";
import type { FreestyleSdkModule } from "./sdk-types.js";

/** What `FreestyleRuntimeOptions.sdk` takes: the module itself, or a function that loads one. */
export type FreestyleSdkSource = FreestyleSdkModule | (() => Promise<FreestyleSdkModule>);

/**
 * The loader of the `freestyle` SDK: the injected module or loader when given,
 * else `import("freestyle")`, the only runtime import of the SDK in the
 * package. A failure is `SDK_UNAVAILABLE` naming the package, the supported
 * range (the peer dependency range in package.json) and the likely cause. The
 * legacy `freestyle-sandboxes` package (the `/v1` API) is not a fallback: it
 * cannot store the ownership marker this adapter relies on.
 */
export function createFreestyleSdkLoader(source?: FreestyleSdkSource): SdkLoader<FreestyleSdkModule> {
  return createSdkLoader<FreestyleSdkModule>({
    provider: "freestyle",
    adapterPackage: "@sandport/freestyle",
    range: ">=0.2.0 <0.3",
    packages: [{ name: "freestyle", load: () => import("freestyle") }],
    requiredMembers: ["Freestyle", "FreestyleApiError"],
    ...(source === undefined ? {} : { source }),
  });
}
