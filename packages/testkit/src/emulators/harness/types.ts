/**
 * Public types shared by every provider emulator: request records, faults and
 * the surface a test drives.
 *
 * @module
 */

/** One HTTP request the emulator received, in arrival order. */
export interface EmulatorRequestRecord {
  /** HTTP method, upper case. */
  readonly method: string;
  /** Path and query exactly as sent (`/files?path=%2Fhome%2Fuser%2Fa.txt`). */
  readonly path: string;
  /**
   * Normalised route name: `"POST /v2/sandboxes"`, `"GET /sandboxes/:id"`,
   * `"rpc process.Process/Start"`. A request that matched no route is named
   * `"<METHOD> <pathname>"` and also listed in `unknownRoutes`.
   */
  readonly route: string;
  /**
   * HTTP status sent. `0` while the response is still being produced, and for
   * a request whose connection was destroyed before a status line went out
   * (the `drop` and `lost-response` faults).
   */
  readonly status: number;
  /** Arrival time, epoch milliseconds. */
  readonly startedAt: number;
  /**
   * When the emulator was done with the request, epoch milliseconds: answered, dropped, or given
   * up because the client left (a request delayed by a latency fault whose caller went away is
   * never processed). `undefined` while it is handled.
   */
  readonly endedAt?: number;
  /** Request headers, names lower-cased, repeated headers joined with `", "`. */
  readonly headers: Readonly<Record<string, string>>;
}

/** What to do to a request that a {@link FaultRule} matches. */
export type FaultSpec =
  /** Answer with this status (429 with `Retry-After`, 5xx, ...). The work is NOT done. */
  | { readonly kind: "status"; readonly status: number; readonly retryAfterSeconds?: number }
  /** Wait this many milliseconds, then handle the request normally. */
  | { readonly kind: "latency"; readonly ms: number }
  /** Destroy the connection before doing any work. */
  | { readonly kind: "drop" }
  /**
   * Do the work and start answering, then destroy the connection. A streamed
   * answer is cut after `afterEvents` messages (default 1); a plain answer is
   * cut after its headers and half of its body.
   */
  | { readonly kind: "drop-mid-stream"; readonly afterEvents?: number }
  /** Do the work, then destroy the connection instead of answering. */
  | { readonly kind: "lost-response" }
  /**
   * Do the work, then hold the answer this many milliseconds before sending
   * it: a client that gives up meanwhile (its deadline, an abort) gets no
   * answer, and the work stays done, as a provider that received a request
   * does it whoever still listens. A streamed answer is not held.
   */
  | { readonly kind: "late-response"; readonly ms: number };

/** A fault armed on one route for the next `times` matching requests. */
export interface FaultRule {
  /** Route name (exact match against {@link EmulatorRequestRecord.route}) or a pattern tested against it. */
  readonly route: string | RegExp;
  /** What to do. */
  readonly fault: FaultSpec;
  /** How many matching requests the fault applies to. Default: 1. */
  readonly times?: number;
}

/** One sandbox the emulator holds (running or paused). */
export interface EmulatedSandboxSummary {
  /** Provider id of the sandbox. */
  readonly id: string;
  /** Metadata (labels) as stored by the provider. */
  readonly metadata: Readonly<Record<string, string>>;
  /** True for sandboxes seeded with `seedForeignSandbox`: they belong to someone else. */
  readonly foreign: boolean;
  /** Provider-specific state, e.g. `"running"` or `"paused"`. */
  readonly state: string;
}

/** What every provider emulator offers a test. */
export interface ProviderEmulator {
  /** Base URL of the emulator: `http://127.0.0.1:<ephemeral port>`. */
  readonly url: string;
  /** Every request received since start or the last `resetRequests()`, in arrival order. */
  readonly requests: readonly EmulatorRequestRecord[];
  /** Number of recorded requests whose route equals the string, or matches the pattern. All requests when omitted. */
  countRequests(route?: string | RegExp): number;
  /** Forget the recorded requests (and the unknown-route log). */
  resetRequests(): void;
  /** Arm a fault. Rules are consulted in the order they were added; the first live match applies. */
  injectFault(rule: FaultRule): void;
  /** Disarm every fault. */
  clearFaults(): void;
  /** Sandboxes that exist right now (running or paused), ours and foreign. */
  liveSandboxes(): EmulatedSandboxSummary[];
  /** Create a sandbox that belongs to someone else (not created through the SDK under test). Resolves its id. */
  seedForeignSandbox(metadata?: Record<string, string>): Promise<string>;
  /** `"<METHOD> <path>"` of every request that matched no route (answered 404 / Connect `unimplemented`). */
  readonly unknownRoutes: readonly string[];
  /** Kill every sandbox, close every connection and stop listening. Safe to call twice. */
  stop(): Promise<void>;
}
