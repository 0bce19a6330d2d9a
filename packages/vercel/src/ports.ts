import { type OpOptions, type PortEndpoint, SandportError, validatePort } from "@sandport/core";
import type { VercelContext } from "./context.js";
import { PROVIDER } from "./handle.js";

/**
 * The public address of a port declared at launch (`LaunchSpec.ports`):
 * `sandbox.domain(port)`, `https://<subdomain>.vercel.run`, with no headers.
 * A port that was not declared has no route: `INVALID_REQUEST`. Costs no
 * request for a sandbox launched here; otherwise one (`Sandbox.get`, which
 * carries the routes).
 */
export async function portEndpoint(
  context: VercelContext,
  handle: unknown,
  port: number,
  op?: OpOptions,
): Promise<PortEndpoint> {
  const checked = validatePort(port, PROVIDER);
  const { lookupMs } = context.options.timeouts;
  return context.onInstance(handle, op, "portEndpoint", lookupMs, async (sandbox, _call, name) => {
    try {
      return { url: sandbox.domain(checked).replace(/\/+$/, "") };
    } catch (error) {
      throw new SandportError({
        code: "INVALID_REQUEST",
        provider: PROVIDER,
        retryable: false,
        cause: error,
        message: `port ${checked} of sandbox ${name} was not declared at launch (LaunchSpec.ports): Vercel routes declared ports only`,
        details: { field: "port", port: checked, sandboxId: name },
      });
    }
  });
}
