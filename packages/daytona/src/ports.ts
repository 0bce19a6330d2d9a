import { type OpOptions, type PortEndpoint, validatePort } from "@sandport/core";
import type { DaytonaContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import { repeatable } from "./run-script.js";

/** The header that carries a private sandbox's preview token. */
export const PREVIEW_TOKEN_HEADER = "x-daytona-preview-token";

/**
 * Where to reach `port` of the sandbox from outside: its Daytona preview link
 * (`getPreviewLink`, one request), with the sandbox's preview token in the
 * `x-daytona-preview-token` header (sandboxes launched here are private).
 * Daytona opens a port on demand, so none needs declaring at launch.
 */
export async function portEndpoint(
  context: DaytonaContext,
  handle: unknown,
  port: number,
  op?: OpOptions,
): Promise<PortEndpoint> {
  const checked = validatePort(port, PROVIDER);
  const { lookupMs } = context.options.timeouts;
  return context.onInstance(handle, op, "portEndpoint", lookupMs, async (sandbox, call, sandboxId) => {
    const site = { operation: "portEndpoint", sandboxId };
    const link = await repeatable(call, site, () => sandbox.getPreviewLink(checked));
    const url = link.url.replace(/\/+$/, "");
    return link.token ? { url, headers: { [PREVIEW_TOKEN_HEADER]: link.token } } : { url };
  });
}
