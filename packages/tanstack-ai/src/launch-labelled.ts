import {
  isNetworkRefusal,
  type LaunchSpec,
  type OpOptions,
  type SandboxHandle,
  type SandportError,
} from "@sandport/core";
import type { HandleContext } from "./context.js";
import { SANDBOX_ID_LABEL } from "./options.js";

/** What {@link launchLabelled} needs of a handle context: the runtime, the loaded framework, the provider name. */
export type LaunchContext<H extends SandboxHandle> = Pick<HandleContext<H>, "runtime" | "sdk" | "providerName">;

/** A sandbox the provider launched, and the id its TanStack AI handle is found again by. */
export interface LabelledSandbox<H extends SandboxHandle> {
  /** The Sandport handle. */
  readonly sandbox: H;
  /** The `tanstack-ai/sandbox-id` label where the runtime can search labels, else the Sandport id (see the provider). */
  readonly handleId: string;
}

/**
 * Launches `spec` labelled `tanstack-ai/sandbox-id=<id>` (beside the spec's
 * own labels). A `launch.network` the runtime refuses (`UNSUPPORTED`, before
 * anything is created) is TanStack AI's `UnsupportedCapabilityError` for
 * `networkPolicy`, the `SandportError` its `cause`.
 */
export async function launchLabelled<H extends SandboxHandle>(
  context: LaunchContext<H>,
  spec: LaunchSpec,
  id: string,
  op: OpOptions,
): Promise<LabelledSandbox<H>> {
  const { runtime } = context;
  const sandbox = await runtime
    .launch({ ...spec, labels: { ...spec.labels, [SANDBOX_ID_LABEL]: id } }, op)
    .catch((error: unknown) => {
      throw isNetworkRefusal(error) ? networkUnsupported(context, error) : error;
    });
  return { sandbox, handleId: runtime.findByLabels ? id : sandbox.id };
}

/** TanStack AI's `UnsupportedCapabilityError` for `networkPolicy`, carrying the runtime's refusal as `cause`. */
function networkUnsupported<H extends SandboxHandle>(context: LaunchContext<H>, error: SandportError): Error {
  const refused = new context.sdk.UnsupportedCapabilityError(context.providerName, "networkPolicy", error.message);
  return Object.assign(refused, { cause: error });
}
