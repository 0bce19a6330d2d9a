/**
 * Credentials as the Freestyle API reads them: an API key as
 * `Authorization: Bearer <key>`, or in `x-freestyle-identity-access-token`
 * (the header the API also reads identity tokens from). Every credential the
 * request presents must be the configured key; identity tokens and Stack
 * access tokens (`Bearer` + `X-Freestyle-Team-Id`) are not emulated and so are
 * refused like any wrong key.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import { ApiError } from "./api.js";

/** Header the SDK sends identity tokens in; the API reads API keys from it too. */
export const IDENTITY_TOKEN_HEADER = "x-freestyle-identity-access-token";

/** `undefined` when the request carries the key and nothing else, else the 401 to answer. */
export function checkCredentials(exchange: Exchange, apiKey: string): ApiError | undefined {
  const presented: string[] = [];
  const authorization = exchange.header("authorization");
  if (authorization !== undefined) {
    const match = /^Bearer (\S+)$/.exec(authorization.trim());
    if (!match) return unauthorized("the Authorization header must be `Bearer <api key>`");
    presented.push(match[1]!);
  }
  const identityToken = exchange.header(IDENTITY_TOKEN_HEADER);
  if (identityToken !== undefined) presented.push(identityToken.trim());
  if (presented.length === 0) return unauthorized("missing API key: send `Authorization: Bearer <api key>`");
  if (presented.some((token) => token !== apiKey)) return unauthorized("invalid API key or access token");
  return undefined;
}

function unauthorized(message: string): ApiError {
  return new ApiError(401, "UNAUTHORIZED", message);
}
