import type * as AgentsCore from "@openai/agents-core";
import type * as AgentsSandbox from "@openai/agents-core/sandbox";
import type * as AgentsSandboxInternal from "@openai/agents-core/sandbox/internal";
import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";

/**
 * The slice of `@openai/agents-core` the bridge uses at run time: the sandbox
 * module (its error classes, `Manifest`, argument normalisation) plus the root
 * module's V4A `applyDiff`, which the editor applies patches with, and its
 * `UserError`, which the framework's editors refuse a `create_file` over an
 * existing path with; and the sandbox module's manifest persistence
 * (`serializeManifestRecord`, `deserializeManifest`), with which the
 * framework's own clients store a session's manifest.
 */
export type AgentsSdk = typeof AgentsSandbox &
  Pick<typeof AgentsCore, "applyDiff" | "UserError"> &
  Pick<typeof AgentsSandboxInternal, "serializeManifestRecord" | "deserializeManifest">;

/**
 * The loader of `@openai/agents-core`, the only run-time import of it in the
 * package. Importing `@sandport/openai-agents` loads nothing; the first session
 * operation does. A failure is `SDK_UNAVAILABLE` naming the package and the
 * supported range (the peer dependency range).
 */
export const loadAgentsSdk: SdkLoader<AgentsSdk> = createSdkLoader<AgentsSdk>({
  provider: "openai-agents",
  adapterPackage: "@sandport/openai-agents",
  range: ">=0.20.0 <0.21.0",
  packages: [
    {
      name: "@openai/agents-core",
      load: async () => {
        const [sandbox, core, internal] = await Promise.all([
          import("@openai/agents-core/sandbox"),
          import("@openai/agents-core"),
          import("@openai/agents-core/sandbox/internal"),
        ]);
        return {
          ...sandbox,
          applyDiff: core.applyDiff,
          UserError: core.UserError,
          serializeManifestRecord: internal.serializeManifestRecord,
          deserializeManifest: internal.deserializeManifest,
        };
      },
    },
  ],
  requiredMembers: [
    "Manifest",
    "isEnvValueReference",
    "SandboxUnsupportedFeatureError",
    "SandboxConfigurationError",
    "SandboxWorkspaceReadNotFoundError",
    "SandboxApplyPatchFileNotFoundError",
    "SandboxApplyPatchDiffError",
    "SandboxApplyPatchDecodeError",
    "SandboxExposedPortUnavailableError",
    "normalizeSandboxClientCreateArgs",
    "permissionsForSandboxEntry",
    "recordExposedPortEndpoint",
    "SandboxError",
    "SandboxLifecycleError",
    "applyDiff",
    "UserError",
    "serializeManifestRecord",
    "deserializeManifest",
  ],
});
