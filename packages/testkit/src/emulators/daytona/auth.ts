/**
 * Credentials the emulator accepts, checked on the API and on the toolbox
 * proxy alike: `Authorization: Bearer <API key>`, or `Bearer <JWT>` together
 * with `X-Daytona-Organization-ID` naming the organization (what the SDK sends
 * when configured with `jwtToken` and `organizationId`).
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";

/** What may call the emulator. */
export interface DaytonaCredentials {
  /** The accepted API key. */
  readonly apiKey: string;
  /** An accepted JWT, valid only with `X-Daytona-Organization-ID: <organizationId>`. */
  readonly jwtToken: string | undefined;
  /** The one organization every sandbox belongs to. */
  readonly organizationId: string;
}

/** Why a request was refused, or `undefined` when its credentials are accepted. */
export type AuthFailure = { readonly status: 401 | 403; readonly message: string } | undefined;

/** Checks the request's credentials; `undefined` means accepted. */
export function checkCredentials(exchange: Exchange, credentials: DaytonaCredentials): AuthFailure {
  const match = /^Bearer\s+(.+)$/i.exec(exchange.header("authorization") ?? "");
  const token = match?.[1]?.trim();
  if (!token) return { status: 401, message: "Unauthorized: no bearer token" };
  if (token === credentials.apiKey) return undefined;
  if (credentials.jwtToken !== undefined && token === credentials.jwtToken) {
    const organization = exchange.header("x-daytona-organization-id");
    if (organization === credentials.organizationId) return undefined;
    return {
      status: 403,
      message:
        organization === undefined
          ? "X-Daytona-Organization-ID is required with a JWT"
          : `no access to organization ${organization}`,
    };
  }
  return { status: 401, message: "Unauthorized: invalid API key or token" };
}
