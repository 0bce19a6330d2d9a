import type { Labels } from "./labels.js";
import type { ResourceLimits } from "./launch-spec.js";

/**
 * What a sandbox was actually given, as the provider reports it (or, for a
 * local runtime, what it enforces), in the units of `ResourceLimits`. Each
 * field is present only where the runtime knows it: an absent field means
 * "not reported", never "unlimited". It may differ from what was asked: a
 * provider rounds up to its own sizes, or gives its default when nothing was
 * asked.
 */
export type GrantedResources = ResourceLimits;

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
  /**
   * What the sandbox was granted (see {@link GrantedResources}), read back
   * from the provider's answer where the adapter has one; absent where the
   * runtime cannot tell. Each adapter's README says which fields it reports.
   */
  readonly resources?: GrantedResources;
}
