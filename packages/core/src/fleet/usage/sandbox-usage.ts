import type { RuntimeRef } from "../failover/runtime-ref.js";
import type { PriceName } from "./price-table.js";

/** How a metered sandbox's use ended, as far as the orchestrator knows. */
export type UsageEnd = "destroyed" | "kept" | "teardown-failed" | "open";

/** One price applied in an estimate. */
export interface PriceLine {
  /** Which price of the table. */
  readonly price: PriceName;
  /** The table's price per unit. */
  readonly rate: number;
  /** How many units were used. */
  readonly quantity: number;
  /** The unit: `sandbox-second`, `GiB-second`, `vCPU-second`, `exec-second`, `GiB`. */
  readonly unit: string;
  /** `rate × quantity`, in the table's currency. */
  readonly amount: number;
}

/** A price of the table that could not be applied, and why. */
export interface UnpricedItem {
  /** Which price, or `"all"` when the table has no entry for the provider. */
  readonly price: PriceName | "all";
  /** Why it was not applied (the launch set no memory size, say). */
  readonly reason: string;
}

/**
 * A cost estimate from the caller's price table: only as good as the table,
 * and blind to whatever the provider bills that the meter does not measure
 * (storage, egress it cannot see, minimums, free tiers).
 */
export interface UsageEstimate {
  /** The table's currency. */
  readonly currency: string;
  /** The provider whose prices were looked up. */
  readonly provider: string;
  /** The sum of `lines`; `undefined` when the table has no prices for the provider. */
  readonly total: number | undefined;
  /** Each price applied. */
  readonly lines: readonly PriceLine[];
  /** Prices of the table not applied, with why. */
  readonly unpriced: readonly UnpricedItem[];
}

/**
 * What one sandbox was used for, measured by the orchestrator: its life as
 * the orchestrator saw it, its commands, and the bytes that went in and out
 * through the port. Not the provider's bill.
 */
export interface SandboxUsage {
  /** The sandbox. */
  readonly sandboxId: string;
  /** The runtime it ran on. */
  readonly runtime: RuntimeRef;
  /** True when the sandbox was reused rather than launched: its life before that is not counted. */
  readonly reused: boolean;
  /** When the provider says it was created (the handle's `createdAt`), when it says. */
  readonly createdAt: string | undefined;
  /** When the orchestrator's launch (or reuse) resolved, ISO-8601. */
  readonly launchedAt: string;
  /** When its destruction was verified, ISO-8601; `undefined` while it still exists (kept, failed, open). */
  readonly destroyedAt: string | undefined;
  /** How its use ended: `open` for a session still in use. */
  readonly end: UsageEnd;
  /** When this account was taken, ISO-8601: the end of the counted life of a sandbox that still exists. */
  readonly measuredAt: string;
  /** Seconds from `launchedAt` to `destroyedAt` (or `measuredAt` while it exists). */
  readonly sandboxSeconds: number;
  /** Commands run through the orchestrator, and the milliseconds they ran in all. */
  readonly execs: { readonly count: number; readonly durationMs: number };
  /** Bytes sent in: file contents written, stdin given. */
  readonly bytesIn: { readonly files: number; readonly stdin: number };
  /** Bytes taken out: files read, command output (stdout and stderr as returned). */
  readonly bytesOut: { readonly files: number; readonly output: number };
  /** The size the launch asked for, which memory and vCPU prices multiply; empty when it asked none. */
  readonly resources: { readonly memoryMiB?: number; readonly cpus?: number };
  /** The estimate, when the orchestrator was given a price table. */
  readonly estimate?: UsageEstimate;
}
