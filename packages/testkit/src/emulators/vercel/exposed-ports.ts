/**
 * Where preview URLs (exposed ports) will go once the backend port can give a
 * command's port an endpoint.
 *
 * On Vercel, `create` declares up to 15 `ports`; every answer that carries a
 * session also carries `routes: [{ port, subdomain, url }]`, one per declared
 * port, and the SDK's `sandbox.domain(port)` builds `https://<subdomain>.vercel.run`
 * from it (`url` is the same address). Traffic to that address reaches the port
 * inside the sandbox.
 *
 * The emulator records the declared ports but answers no routes: a route whose
 * address leads nowhere would be a fake, so `domain(port)` throws the SDK's own
 * "No route for port" instead. When the port gains a port-endpoint method,
 * {@link routesFor} is the one place to fill in, with an HTTP proxy behind it.
 *
 * @module
 */

import type { VercelSandbox } from "./context.js";

/** One entry of `routes` in the API's answers. */
export interface SandboxRoute {
  readonly port: number;
  /** Host label under `vercel.run`. */
  readonly subdomain: string;
  /** `https://<subdomain>.vercel.run`. */
  readonly url: string;
}

/** The routes of a sandbox's declared ports: none until the backend can expose a port. */
export function routesFor(_sandbox: VercelSandbox): SandboxRoute[] {
  return [];
}
