import type { AgentsSdk } from "./internal/sdk.js";

/** Refuses `runAs`: a Sandport runtime runs everything as its one sandbox user. */
export function refuseRunAs(sdk: AgentsSdk, runtime: { readonly provider: string }, runAs: string | undefined): void {
  if (runAs === undefined) return;
  throw new sdk.SandboxUnsupportedFeatureError(
    `Sandport sandboxes run everything as one user; runAs ${runAs} is refused`,
    {
      provider: runtime.provider,
      feature: "runAs",
    },
  );
}
