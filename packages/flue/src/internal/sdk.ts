import type * as FlueRuntime from "@flue/runtime";
import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";

/** The slice of `@flue/runtime` the bridge uses at run time: its error classes and `sandboxFromDriver`. */
export type FlueSdk = Pick<
  typeof FlueRuntime,
  "sandboxFromDriver" | "SandboxOperationUnsupportedError" | "SandboxDiedError"
>;

/**
 * The loader of `@flue/runtime`, the only run-time import of it in the
 * package: importing `@sandport/flue` loads nothing. Flue needs Node 22.19+;
 * on an older Node the error says so.
 */
export const loadFlue: SdkLoader<FlueSdk> = createSdkLoader<FlueSdk>({
  provider: "flue",
  adapterPackage: "@sandport/flue",
  range: ">=2.1.0 <3",
  packages: [{ name: "@flue/runtime", load: () => import("@flue/runtime") }],
  requiredMembers: ["sandboxFromDriver", "SandboxOperationUnsupportedError", "SandboxDiedError"],
  node: ">=22.19.0",
});
