import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";
import type { DaytonaSdkModule } from "./sdk-types.js";

/** What `DaytonaRuntimeOptions.sdk` takes: the module itself, or a function that loads it. */
export type DaytonaSdkSource = DaytonaSdkModule | (() => Promise<DaytonaSdkModule>);

/**
 * The loader of the Daytona SDK: the injected module or loader when given,
 * else `import("@daytona/sdk")` (the package's new name), then
 * `import("@daytonaio/sdk")` (the old one, whose releases run ahead of the new
 * name's): the only runtime imports of the SDK in the package. A failure is
 * `SDK_UNAVAILABLE` naming both packages, the supported range (the peer
 * dependency range of both in package.json) and `@daytona/sdk` to install.
 */
export function createDaytonaSdkLoader(source?: DaytonaSdkSource): SdkLoader<DaytonaSdkModule> {
  return createSdkLoader<DaytonaSdkModule>({
    provider: "daytona",
    adapterPackage: "@sandport/daytona",
    range: ">=0.180.0 <1",
    packages: [
      { name: "@daytona/sdk", load: () => import("@daytona/sdk") },
      { name: "@daytonaio/sdk", load: () => import("@daytonaio/sdk") },
    ],
    requiredMembers: ["Daytona", "Image.base"],
    ...(source === undefined ? {} : { source }),
  });
}
