import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";
import type { ModalSdkModule } from "./sdk-types.js";

/** What `ModalRuntimeOptions.sdk` takes: the module itself, or a function that loads one. */
export type ModalSdkSource = ModalSdkModule | (() => Promise<ModalSdkModule>);

/**
 * The loader of the Modal Labs SDK: the injected module or loader when given,
 * else `import("modal")`, the only runtime import of the SDK in the package. A
 * failure is `SDK_UNAVAILABLE` naming the package, the supported range (the
 * peer dependency range in package.json) and the likely cause. The registry's
 * `latest` tag of `modal` is an unrelated browser package: a module without
 * `ModalClient` is refused the same way, as not the Modal SDK.
 */
export function createModalSdkLoader(source?: ModalSdkSource): SdkLoader<ModalSdkModule> {
  return createSdkLoader<ModalSdkModule>({
    provider: "modal",
    adapterPackage: "@sandport/modal",
    range: ">=0.11 <1",
    packages: [{ name: "modal", load: () => import("modal") }],
    requiredMembers: ["ModalClient"],
    ...(source === undefined ? {} : { source }),
  });
}
