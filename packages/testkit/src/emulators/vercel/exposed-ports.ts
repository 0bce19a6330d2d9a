/**
 * Preview URLs (exposed ports). On Vercel, `create` declares up to 15
 * `ports`; every answer that carries a session also carries
 * `routes: [{ port, subdomain, url }]`, one per declared port, and the SDK's
 * `sandbox.domain(port)` builds `https://<subdomain>.vercel.run` from it (`url`
 * is the same address). Traffic to that address reaches the port inside the sandbox.
 *
 * Here each sandbox gets a random preview token at create; the subdomain of
 * a port is `sb-<token>-<port>`. `preview-hosts.ts` makes this process's
 * global `fetch` send those hosts to the emulator's `PreviewProxy`, which
 * relays to the backend's endpoint for the port (`portEndpoint`).
 *
 * @module
 */

import type { RegisteredSandbox } from "../harness/sandbox-registry.js";
import type { VercelSandbox, VercelSandboxData } from "./context.js";
import type { PreviewRoute } from "./preview-proxy.js";

/** The domain every preview host is under. */
export const PREVIEW_DOMAIN = "vercel.run";

/** One entry of `routes` in the API's answers. */
export interface SandboxRoute {
  readonly port: number;
  /** Host label under `vercel.run`. */
  readonly subdomain: string;
  /** `https://<subdomain>.vercel.run`. */
  readonly url: string;
}

/** The routes of a sandbox's declared ports. */
export function routesFor(sandbox: VercelSandbox): SandboxRoute[] {
  return sandbox.data.ports.map((port) => {
    const subdomain = `sb-${sandbox.data.previewToken}-${port}`;
    return { port, subdomain, url: `https://${subdomain}.${PREVIEW_DOMAIN}` };
  });
}

/** The sandbox and declared port a preview host was issued for; `undefined` for any other host. */
export function findPreviewRoute(
  sandboxes: readonly RegisteredSandbox<VercelSandboxData>[],
  hostname: string,
): PreviewRoute | undefined {
  const match = /^sb-([a-z0-9]+)-(\d+)\.vercel\.run$/.exec(hostname.toLowerCase());
  if (!match) return undefined;
  const port = Number(match[2]);
  const sandbox = sandboxes.find((candidate) => candidate.data.previewToken === match[1]);
  return sandbox?.data.ports.includes(port) ? { sandbox, port } : undefined;
}
