import type { SandboxHandle, SandboxRuntime, SandportError } from "@sandport/core";
import type { ProviderEmulator } from "../emulators/harness/types.js";

/** Every case of the shared wire-fault suite, by id (the first word of each test's title). */
export const WIRE_FAULT_CASES = [
  "create-rate-limited",
  "create-refused",
  "create-lost-response",
  "create-dropped",
  "create-past-deadline",
  "create-aborted",
  "list-refused",
  "exec-refused",
  "exec-dropped",
  "exec-cut",
  "exec-past-deadline",
  "stream-cut",
  "delete-refused",
  "delete-lost-response",
] as const;

/** One case of the shared wire-fault suite. */
export type WireFaultCase = (typeof WIRE_FAULT_CASES)[number];

/** The emulator route names (as in its request log) the suite injects faults on. */
export interface WireFaultRoutes {
  /** The request that creates a sandbox (`"POST /v2/sandboxes"`). */
  readonly create: string;
  /** The list request a search by labels pages through. */
  readonly list: string;
  /** The request that destroys a sandbox. */
  readonly delete: string;
  /** The request that starts a command (or opens the connection a command runs on). */
  readonly exec: string | RegExp;
  /** The request whose answer carries a command's output, when it is not `exec` itself. Default: `exec`. */
  readonly output?: string | RegExp;
  /**
   * The request whose answer carries a streamed command's output (`execStream`). When absent, the
   * `stream-cut` case is skipped, saying so.
   */
  readonly stream?: string | RegExp;
}

/**
 * How many requests one runtime call sends on a route while every one is refused: one, plus the
 * retries the vendor SDK or the adapter makes. The suite refuses exactly that many, so the call
 * fails and the next one succeeds.
 */
export interface WireFaultAttempts {
  /** Creates sent by one `launch` answered 429 (with `Retry-After: 0`). Default 1. */
  readonly createRateLimited?: number;
  /** Creates sent by one `launch` answered 503. Default 1. */
  readonly createUnavailable?: number;
  /** Creates sent by one `launch` answered 500. Default 1. */
  readonly createServerError?: number;
  /** Deletes sent by one `destroy` answered 502. Default 1. */
  readonly deleteRefused?: number;
}

/** What the adapter promises about launches whose create failed. */
export interface WireFaultOutcomes {
  /** Whether a 503 on create leaves the outcome unknown (`details.outcomeUnknown`). Default `false`: a 503 is a refusal. */
  readonly createUnavailableUnknown?: boolean;
  /** Whether a 500 on create leaves the outcome unknown, so the orchestrator reconciles. Default `true`. */
  readonly createServerErrorUnknown?: boolean;
  /**
   * The statuses for which a command start refused once is repeated (by the SDK or the adapter), so
   * the call succeeds. Default none: for the others, success (ran once) and a typed failure (did
   * not run) are both allowed.
   */
  readonly execRetriedOn?: readonly (503 | 429)[];
}

/** A runtime whose background work (cleanup of abandoned calls) can be waited for, as every adapter's can. */
export type SettlingRuntime<H extends SandboxHandle = SandboxHandle> = SandboxRuntime<H> & {
  /** Waits for the runtime's background work; resolves the errors it met. */
  settle(): Promise<readonly SandportError[]>;
};

/** What the suite needs; the getters are read inside the tests, so they may name values set in a `before` hook. */
export interface WireFaultOptions<H extends SandboxHandle = SandboxHandle> {
  /** The `describe` title. Default: `"shared wire faults"`. */
  readonly name?: string;
  /** The runtime under test, bound to `emulator`. */
  readonly runtime: () => SettlingRuntime<H>;
  /** The emulator the runtime talks to. */
  readonly emulator: () => ProviderEmulator;
  /** Route names to fault. */
  readonly routes: WireFaultRoutes;
  /** Requests per call under refusal; see {@link WireFaultAttempts}. */
  readonly attempts?: WireFaultAttempts;
  /** Outcomes the adapter reports; see {@link WireFaultOutcomes}. */
  readonly outcomes?: WireFaultOutcomes;
  /**
   * Requests a search by labels sends for the 3 sandboxes the `list-refused` case launches when its
   * first two pages are refused once each (503, then 429): depends on the emulator's page size and
   * who retries. Unchecked when absent.
   */
  readonly listRequests?: number;
  /** Cases not to run, each with the reason (printed as the skip message). */
  readonly skip?: Partial<Record<WireFaultCase, string>>;
  /** Deadline in ms the `*-past-deadline` cases give a call; the injected latency is 4 times it. Default 400. */
  readonly deadlineMs?: number;
  /**
   * How long past its deadline a call may take to reject before the suite calls it a hang, in ms.
   * Also bounds every other call of the suite. Default 10 000.
   */
  readonly hangMs?: number;
}
