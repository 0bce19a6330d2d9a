import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";
import type { MastraWorkspaceModule } from "./sdk-types.js";

/**
 * Loads `@mastra/core/workspace` on first need: the only runtime import of
 * Mastra in the package. A failure is `SDK_UNAVAILABLE` naming the package
 * and the supported range (the peer range in package.json).
 */
export const loadMastra: SdkLoader<MastraWorkspaceModule> = createSdkLoader<MastraWorkspaceModule>({
  provider: "mastra",
  adapterPackage: "@sandport/mastra",
  range: ">=1.71.0 <2",
  packages: [{ name: "@mastra/core", load: () => import("@mastra/core/workspace") }],
  requiredMembers: ["MastraSandbox", "SandboxProcessManager", "ProcessHandle", "FileNotFoundError"],
  node: ">=22.13.0",
});
