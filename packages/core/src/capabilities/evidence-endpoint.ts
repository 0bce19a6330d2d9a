import { invalidRequest } from "../errors/factories.js";
import type { EvidenceEndpoint } from "./evidence-record.js";

/**
 * The {@link EvidenceEndpoint} of a run: `default` when `url` is undefined (no
 * endpoint option was set), else `custom` with the URL reduced to scheme, host,
 * port and path (no user name, password, query or fragment: a record is shared,
 * and a URL may carry a token). A `url` that is not a URL is `INVALID_REQUEST`.
 */
export function evidenceEndpoint(url: string | undefined): EvidenceEndpoint {
  if (url === undefined) return { kind: "default" };
  return { kind: "custom", url: endpointKey(url) };
}

/**
 * The form endpoints are compared in: `origin` plus path, without a trailing
 * slash, so `http://127.0.0.1:9/` and `http://127.0.0.1:9` are the same endpoint.
 */
export function endpointKey(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidRequest(`endpoint ${JSON.stringify(url)} is not a URL`, { endpoint: url });
  }
  const path = parsed.pathname.replace(/\/+$/, "");
  return `${parsed.origin === "null" ? `${parsed.protocol}//${parsed.host}` : parsed.origin}${path}`;
}
