import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";
import type * as TanStackSandbox from "@tanstack/ai-sandbox";

/** The slice of `@tanstack/ai-sandbox` the bridge uses at run time: its unsupported error and its exec-backed git. */
export type TanStackSandboxSdk = Pick<typeof TanStackSandbox, "UnsupportedCapabilityError" | "createExecBackedGit">;

/**
 * The loader of `@tanstack/ai-sandbox`, the only run-time import of it in the
 * package: importing `@sandport/tanstack-ai` loads nothing.
 */
export const loadTanStackSandbox: SdkLoader<TanStackSandboxSdk> = createSdkLoader<TanStackSandboxSdk>({
  provider: "tanstack-ai",
  adapterPackage: "@sandport/tanstack-ai",
  range: ">=0.2.4 <0.3",
  packages: [{ name: "@tanstack/ai-sandbox", load: () => import("@tanstack/ai-sandbox") }],
  requiredMembers: ["UnsupportedCapabilityError", "createExecBackedGit"],
});
