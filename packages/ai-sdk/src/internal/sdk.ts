import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";
import type { AiModule, HarnessModule } from "./sdk-types.js";

/** What both loaders share: failures name this package, and Node 22 when this Node is older. */
const shared = { provider: "ai-sdk", adapterPackage: "@sandport/ai-sdk", node: ">=22" } as const;

/**
 * Loads `ai` on first need: the only runtime import of it in the package, for
 * its `UnsupportedFunctionalityError`. A failure is `SDK_UNAVAILABLE` naming
 * the package and the supported range (the peer range in package.json).
 */
export const loadAi: SdkLoader<AiModule> = createSdkLoader<AiModule>({
  ...shared,
  range: ">=7.0.173 <7.1.0",
  packages: [{ name: "ai", load: () => import("ai") }],
  requiredMembers: ["UnsupportedFunctionalityError"],
});

/** Loads `@ai-sdk/harness` on first need, for its `HarnessCapabilityUnsupportedError`; only the harness provider does. */
export const loadHarness: SdkLoader<HarnessModule> = createSdkLoader<HarnessModule>({
  ...shared,
  range: ">=1.0.122 <1.1.0",
  packages: [{ name: "@ai-sdk/harness", load: () => import("@ai-sdk/harness") }],
  requiredMembers: ["HarnessCapabilityUnsupportedError"],
});
