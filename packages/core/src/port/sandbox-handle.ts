import type { Labels } from "./labels.js";

/**
 * What a runtime returns from `launch` and accepts everywhere else.
 *
 * A handle is plain data: it can be logged, serialised and, through
 * `getById`, rebuilt in another process. Adapters extend it with the fields
 * they need (a workspace path, an access token's expiry); callers should treat
 * those as opaque.
 */
export interface SandboxHandle {
  /** Provider-assigned identifier, stable for the sandbox's life. */
  readonly id: string;
  /** The `provider` of the runtime that created this handle. */
  readonly provider: string;
  /** Caller labels as launched, without Sandport's reserved `sandport.*` keys. */
  readonly labels: Labels;
  /** Creation time as an ISO-8601 string, when the provider reports it. */
  readonly createdAt?: string;
}
