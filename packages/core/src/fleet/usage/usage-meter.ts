import type { ExecResult } from "../../port/exec-result.js";
import type { FileInput } from "../../port/file-input.js";
import type { ResourceLimits } from "../../port/launch-spec.js";
import type { RuntimeRef } from "../failover/runtime-ref.js";
import { estimateUsage } from "./estimate-usage.js";
import type { PriceTable } from "./price-table.js";
import type { SandboxUsage, UsageEnd } from "./sandbox-usage.js";

/** What a meter is started with: the sandbox, where it runs, and what it was launched with. */
export interface UsageMeterStart {
  readonly sandboxId: string;
  readonly runtime: RuntimeRef;
  readonly reused: boolean;
  /** The handle's `createdAt`, when the provider reports one. */
  readonly createdAt?: string;
  /** The launch's resource limits (memory and vCPUs are what such prices multiply). */
  readonly resources?: ResourceLimits;
  /** Milliseconds since the epoch; default `Date.now`. A test passes its own clock. */
  readonly now?: () => number;
}

const encoder = new TextEncoder();

/** The byte length of a string as UTF-8, or of bytes. */
export function byteLength(content: string | Uint8Array): number {
  return typeof content === "string" ? encoder.encode(content).byteLength : content.byteLength;
}

/**
 * Counts one sandbox's use as the orchestrator drives it: started when the
 * sandbox is acquired, told of every command and transfer, ended when it is
 * destroyed or kept. Reports a {@link SandboxUsage} at any time.
 */
export class UsageMeter {
  readonly #start: UsageMeterStart;
  readonly #now: () => number;
  readonly #launchedAt: number;
  #endedAt: number | undefined;
  #end: UsageEnd = "open";
  #execCount = 0;
  #execMs = 0;
  #filesIn = 0;
  #stdinIn = 0;
  #filesOut = 0;
  #outputOut = 0;

  /** Starts metering now (the sandbox was just acquired). */
  constructor(start: UsageMeterStart) {
    this.#start = start;
    this.#now = start.now ?? Date.now;
    this.#launchedAt = this.#now();
  }

  /** A command ran: its stdin went in, its output came out. */
  exec(stdin: string | Uint8Array | undefined, result: ExecResult, durationMs = result.durationMs): void {
    this.#execCount += 1;
    this.#execMs += durationMs;
    if (stdin !== undefined) this.#stdinIn += byteLength(stdin);
    this.#outputOut += byteLength(result.stdout) + byteLength(result.stderr);
  }

  /** Files were written into the sandbox. */
  filesWritten(files: readonly FileInput[]): void {
    for (const file of files) this.#filesIn += byteLength(file.content);
  }

  /** A file of `bytes` was read out of the sandbox. */
  fileRead(bytes: number): void {
    this.#filesOut += bytes;
  }

  /** The sandbox's use ended: destroyed (its life ends now), kept, or its teardown failed. */
  end(end: Exclude<UsageEnd, "open">): void {
    if (this.#end !== "open") return;
    this.#end = end;
    if (end === "destroyed") this.#endedAt = this.#now();
  }

  /** The usage so far, with an estimate when `prices` is given. */
  report(prices?: PriceTable): SandboxUsage {
    const measuredAt = this.#now();
    const until = this.#endedAt ?? measuredAt;
    const { memoryMiB, cpus } = this.#start.resources ?? {};
    const usage = {
      sandboxId: this.#start.sandboxId,
      runtime: this.#start.runtime,
      reused: this.#start.reused,
      createdAt: this.#start.createdAt,
      launchedAt: new Date(this.#launchedAt).toISOString(),
      destroyedAt: this.#endedAt === undefined ? undefined : new Date(this.#endedAt).toISOString(),
      end: this.#end,
      measuredAt: new Date(measuredAt).toISOString(),
      sandboxSeconds: Math.max(0, until - this.#launchedAt) / 1000,
      execs: { count: this.#execCount, durationMs: this.#execMs },
      bytesIn: { files: this.#filesIn, stdin: this.#stdinIn },
      bytesOut: { files: this.#filesOut, output: this.#outputOut },
      resources: {
        ...(memoryMiB === undefined ? {} : { memoryMiB }),
        ...(cpus === undefined ? {} : { cpus }),
      },
    };
    return prices ? { ...usage, estimate: estimateUsage(usage, prices, this.#start.runtime.provider) } : usage;
  }
}
