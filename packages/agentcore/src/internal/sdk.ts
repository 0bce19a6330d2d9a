import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";
import type { AgentCoreSdkModule } from "./sdk-types.js";

/** What `AgentCoreRuntimeOptions.sdk` takes: the module itself, or a function that loads one. */
export type AgentCoreSdkSource = AgentCoreSdkModule | (() => Promise<AgentCoreSdkModule>);

/**
 * The loader of `@aws-sdk/client-bedrock-agentcore`: the injected module or
 * loader when given, else `import("@aws-sdk/client-bedrock-agentcore")`, the
 * only runtime import of the SDK in the package. A failure is
 * `SDK_UNAVAILABLE` naming the package and the supported range (the peer
 * range: releases that run on Node 20; see README).
 */
export function createAgentCoreSdkLoader(source?: AgentCoreSdkSource): SdkLoader<AgentCoreSdkModule> {
  return createSdkLoader<AgentCoreSdkModule>({
    provider: "agentcore",
    adapterPackage: "@sandport/agentcore",
    range: ">=3.1000.0 <3.1142.0",
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
