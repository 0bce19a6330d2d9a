/**
 * Published ports (preview URLs): on Freestyle a TLS rule publishes a domain
 * (a free `*.style.dev` name or a verified one) to a port of a VM, either in
 * `tls.rules` of `POST /v5/vms` or through `/v5/tls/rules`. Serving one needs
 * an endpoint for a sandbox port from the backend port, which it does not have
 * yet. Until then a create that asks for TLS rules is refused with
 * `NOT_EMULATED`, and the `/v5/tls/*` routes are not registered (answered 404,
 * logged in `unknownRoutes`).
 *
 * @module
 */

import type { EmulatorServer } from "../harness/http-server.js";
import { badRequest, notEmulated } from "./api.js";
import type { FreestyleContext } from "./context.js";

/** Registers the TLS rule routes. None yet: the backend port cannot expose a sandbox port. */
export function registerPublishedPortRoutes(_server: EmulatorServer, _context: FreestyleContext): void {}

/** Accept an absent `tls` or one without rules; refuse any rule with `NOT_EMULATED`. */
export function refusePublishedPorts(tls: unknown): void {
  if (tls === undefined || tls === null) return;
  const rules = (tls as { rules?: unknown }).rules;
  if (typeof tls !== "object" || !Array.isArray(rules)) throw badRequest("tls must be { rules: [...] }");
  if (rules.length > 0) throw notEmulated("tls rules (publishing a domain to a VM port)");
}
