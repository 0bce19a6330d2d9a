import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";
import type { AgentCoreSdkModule } from "./sdk-types.js";

/** What `AgentCoreRuntimeOptions.sdk` takes: the module itself, or a function that loads one. */
export type AgentCoreSdkSource = AgentCoreSdkModule | (() => Promise<AgentCoreSdkModule>);

/** The supported `@aws-sdk/client-bedrock-agentcore` range: the releases that still run on Node 20 (see README). */
export const AGENTCORE_SDK_RANGE = ">=3.1000.0 <3.1142.0";

/**
 * The loader of `@aws-sdk/client-bedrock-agentcore`: the injected module or
 * loader when given, else `import("@aws-sdk/client-bedrock-agentcore")`, the
 * only runtime import of the SDK in the package. A failure is
 * `SDK_UNAVAILABLE` naming the package and the supported range.
 */
export function createAgentCoreSdkLoader(source?: AgentCoreSdkSource): SdkLoader<AgentCoreSdkModule> {
  return createSdkLoader<AgentCoreSdkModule>({
    provider: "agentcore",
    adapterPackage: "@sandport/agentcore",
    range: AGENTCORE_SDK_RANGE,
    packages: [
      {
        name: "@aws-sdk/client-bedrock-agentcore",
        load: () => import("@aws-sdk/client-bedrock-agentcore") as unknown as Promise<AgentCoreSdkModule>,
      },
    ],
    requiredMembers: [
      "BedrockAgentCoreClient",
      "StartCodeInterpreterSessionCommand",
      "GetCodeInterpreterSessionCommand",
      "ListCodeInterpreterSessionsCommand",
      "StopCodeInterpreterSessionCommand",
      "InvokeCodeInterpreterCommand",
    ],
    ...(source === undefined ? {} : { source }),
  });
}
