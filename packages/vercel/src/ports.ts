import { type OpOptions, type PortEndpoint, SandportError, validatePort } from "@sandport/core";
import type { VercelContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { VercelSandbox } from "./internal/sdk-types.js";

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
  return context.onInstance(handle, op, "portEndpoint", context.options.timeouts.lookupMs, (sandbox, _call, name) =>
    routeOf(sandbox, checked, name),
  );
}

/** The public URL of a declared port; an undeclared one is `INVALID_REQUEST` (Vercel has no route for it). */
async function routeOf(sandbox: VercelSandbox, port: number, name: string): Promise<PortEndpoint> {
  try {
    return { url: sandbox.domain(port).replace(/\/+$/, "") };
  } catch (error) {
    throw new SandportError({
      code: "INVALID_REQUEST",
      provider: PROVIDER,
      retryable: false,
      cause: error,
      message: `port ${port} of sandbox ${name} was not declared at launch (LaunchSpec.ports): Vercel routes declared ports only`,
      details: { field: "port", port, sandboxId: name },
    });
  }
}
