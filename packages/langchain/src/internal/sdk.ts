import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";
import type * as DeepAgents from "deepagents";

/**
 * The slice of `deepagents` the bridge uses at run time: the `BaseSandbox`
 * class it extends and the `SandboxError` its lifecycle throws.
 */
export type DeepAgentsSdk = Pick<typeof DeepAgents, "BaseSandbox" | "SandboxError">;

/**
 * The loader of `deepagents`, the only run-time import of it in the package:
 * importing `@sandport/langchain` loads nothing, creating a sandbox does. A
 * failure is `SDK_UNAVAILABLE` naming the package and the supported range.
 */
export const loadDeepAgents: SdkLoader<DeepAgentsSdk> = createSdkLoader<DeepAgentsSdk>({
  provider: "langchain",
  adapterPackage: "@sandport/langchain",
  range: ">=1.14.1 <2",
  packages: [{ name: "deepagents", load: () => import("deepagents") }],
  requiredMembers: ["BaseSandbox", "SandboxError"],
});
