import { SandportError } from "@sandport/core";
import type { DaytonaClient, DaytonaSandboxApi } from "./sdk-types.js";

/**
 * The low-level sandbox API of a `Daytona` client: the `sandboxApi` field
 * every supported SDK keeps (its types call it private). It is how the
 * adapter reads a sandbox exactly as the API answers it, and cancels a
 * control-plane request at its deadline. A client without it is an SDK this
 * adapter does not support: `SDK_UNAVAILABLE`.
 */
export function lowLevelApi(client: DaytonaClient): DaytonaSandboxApi {
  const api = (client as unknown as { sandboxApi?: Partial<DaytonaSandboxApi> }).sandboxApi;
  if (
    typeof api?.getSandbox === "function" &&
    typeof api.createSandbox === "function" &&
    typeof api.deleteSandbox === "function" &&
    typeof api.listSandboxes === "function"
  ) {
    return api as DaytonaSandboxApi;
  }
  throw new SandportError({
    code: "SDK_UNAVAILABLE",
    provider: "daytona",
    retryable: false,
    message:
      "@sandport/daytona needs the Daytona SDK's low-level sandbox API (Daytona#sandboxApi), which this SDK lacks: it is not a supported version (>=0.180.0 <1)",
  });
}
