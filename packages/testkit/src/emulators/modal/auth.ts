import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { GrpcCallContext } from "./grpc-server.js";
import { GrpcError } from "./grpc-status.js";

/** The settings {@link ModalAuth} checks against. */
export interface ModalAuthSettings {
  readonly tokenId: string;
  readonly tokenSecret: string;
  /** Lifetime of the JWT `AuthTokenGet` returns (`x-modal-auth-token`). */
  readonly authTokenTtlSeconds: number;
  /** Lifetime of the command-router JWT (`authorization: Bearer`). */
  readonly routerTokenTtlSeconds: number;
}

const AUTH_TOKEN_GET = "rpc modal.client.ModalClient/AuthTokenGet";
const OAUTH_HEADERS = ["x-modal-refresh-token", "x-modal-oauth-client-id", "x-modal-oauth-client-secret"];

/**
 * Modal's credentials as the emulator checks them. Every control-plane call
 * must carry the configured `x-modal-token-id` / `x-modal-token-secret`, and
 * every call but `AuthTokenGet` also the JWT that `AuthTokenGet` issued
 * (`x-modal-auth-token`), unexpired. Command-router calls carry the
 * sandbox's router JWT as `authorization: Bearer`. Anything else is
 * `UNAUTHENTICATED`, which the SDK treats as "credentials refused" (no retry)
 * on the control plane and as "refresh the router JWT, then retry once" on
 * the command router.
 */
export class ModalAuth {
  readonly settings: ModalAuthSettings;
  readonly #key = randomBytes(32);

  constructor(settings: ModalAuthSettings) {
    this.settings = settings;
  }

  /** The guard of the control-plane listener. */
  checkControlPlane(call: GrpcCallContext): void {
    if (OAUTH_HEADERS.some((name) => call.metadata(name) !== undefined)) {
      throw new GrpcError(
        "UNAUTHENTICATED",
        "OAuth credentials are not accepted by this server; use a token id and secret",
      );
    }
    const tokenId = call.metadata("x-modal-token-id");
    const tokenSecret = call.metadata("x-modal-token-secret");
    if (!tokenId || !tokenSecret)
      throw new GrpcError("UNAUTHENTICATED", "Token missing. Could not authenticate client.");
    if (!sameText(tokenId, this.settings.tokenId) || !sameText(tokenSecret, this.settings.tokenSecret)) {
      throw new GrpcError("UNAUTHENTICATED", "Invalid credentials: the token id or token secret is wrong.");
    }
    if (call.route === AUTH_TOKEN_GET) return;
    const authToken = call.metadata("x-modal-auth-token");
    if (!authToken) throw new GrpcError("UNAUTHENTICATED", "missing x-modal-auth-token");
    const claims = this.#verify(authToken);
    if (claims?.kind !== "auth" || claims.sub !== this.settings.tokenId) {
      throw new GrpcError("UNAUTHENTICATED", "invalid or expired x-modal-auth-token");
    }
  }

  /** The guard of the command-router listener: a well-formed, unexpired router JWT. */
  checkRouter(call: GrpcCallContext): void {
    this.routerTask(call);
  }

  /** The task a command-router call's JWT grants. */
  routerTask(call: GrpcCallContext): string {
    const header = call.metadata("authorization") ?? "";
    const token = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
    const claims = token ? this.#verify(token) : undefined;
    if (claims?.kind !== "router" || typeof claims.task !== "string") {
      throw new GrpcError("UNAUTHENTICATED", "invalid or expired command router token");
    }
    return claims.task;
  }

  /** A JWT for `x-modal-auth-token`. */
  mintAuthToken(): string {
    return this.#mint({ kind: "auth", sub: this.settings.tokenId }, this.settings.authTokenTtlSeconds);
  }

  /** A command-router JWT for one task. */
  mintRouterToken(taskId: string): string {
    return this.#mint({ kind: "router", task: taskId }, this.settings.routerTokenTtlSeconds);
  }

  #mint(claims: Record<string, string>, ttlSeconds: number): string {
    const now = Date.now() / 1000;
    const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
    // `exp` in fractional seconds, so a sub-second lifetime in a test still expires on time.
    const payload = base64url(JSON.stringify({ ...claims, iat: Math.floor(now), exp: now + ttlSeconds }));
    return `${header}.${payload}.${this.#sign(`${header}.${payload}`)}`;
  }

  #verify(token: string): Record<string, unknown> | undefined {
    const [header, payload, signature, ...rest] = token.split(".");
    if (!header || !payload || !signature || rest.length > 0) return undefined;
    if (!sameText(signature, this.#sign(`${header}.${payload}`))) return undefined;
    let claims: Record<string, unknown>;
    try {
      claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    if (typeof claims.exp !== "number" || claims.exp <= Date.now() / 1000) return undefined;
    return claims;
  }

  #sign(data: string): string {
    return createHmac("sha256", this.#key).update(data).digest("base64url");
  }
}

function base64url(text: string): string {
  return Buffer.from(text, "utf8").toString("base64url");
}

function sameText(actual: string, expected: string): boolean {
  const a = Buffer.from(actual);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
