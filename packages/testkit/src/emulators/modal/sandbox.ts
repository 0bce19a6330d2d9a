import type { SandboxHandle } from "@sandport/core";
import { CommandTable } from "../harness/command-table.js";
import type { TunnelPort } from "./context.js";
import type { ExecProcess } from "./exec-process.js";
import { GrpcError } from "./grpc-status.js";
import type { OutboundNetwork } from "./network-access.js";

/** Modal's `GenericResult` statuses that end a sandbox. */
export type SandboxEnd = "GENERIC_STATUS_TERMINATED" | "GENERIC_STATUS_TIMEOUT";

/** What a sandbox is created with, as the emulator keeps it. */
export interface SandboxSettings {
  readonly id: string;
  readonly taskId: string;
  readonly appId: string;
  readonly environment: string;
  /** Unique among the app's running sandboxes when set. */
  readonly name: string | undefined;
  readonly imageId: string;
  /** Environment for every exec (create `env` and secrets). */
  readonly env: Readonly<Record<string, string>>;
  /** Workspace-relative default working directory of execs (`""`: the workspace root). */
  readonly workdir: string;
  readonly timeoutSecs: number;
  readonly idleTimeoutSecs: number | undefined;
  /** Ports opened as tunnels at create. */
  readonly ports: readonly TunnelPort[];
  /** `networkAccess` as created: open, blocked, or an outbound allowlist. */
  readonly network: OutboundNetwork;
  /**
   * `definition.resources` as created: the hard limits (`cpus` from `milliCpuMax`, `memoryMiB` from
   * `memoryMbMax`) and the reservations (`milliCpu`, `memoryMb`), each absent where the create set none.
   * `SandboxListV2` answers them as the sandbox's `resourceInfo`.
   */
  readonly resources: {
    readonly cpus: number | undefined;
    readonly memoryMiB: number | undefined;
    readonly reserved: { readonly cpus?: number; readonly memoryMiB?: number };
  };
  /** Creation time, epoch seconds (unique per emulator, so list pages never split a tie). */
  readonly createdAt: number;
  /** True for sandboxes seeded with `seedForeignSandbox`. */
  readonly foreign: boolean;
}

/**
 * One sandbox: its settings, backend handle, execs and end. A sandbox runs
 * until it is terminated or passes its timeout (or idle timeout), then keeps
 * its record (for wait, poll and lookups with `includeTerminated`) while its
 * backend workspace is destroyed.
 */
export class EmulatedSandbox {
  readonly settings: SandboxSettings;
  readonly handle: SandboxHandle;
  tags: Record<string, string>;
  readonly #execs = new CommandTable<string, ExecProcess>({ keepEnded: true });
  readonly #finishWaiters = new Set<() => void>();
  #result: { readonly status: SandboxEnd; readonly exitcode: number; readonly exception: string } | undefined;
  #lifetimeTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #onTimeout: ((sandbox: EmulatedSandbox, reason: string) => void) | undefined;

  constructor(settings: SandboxSettings, handle: SandboxHandle, tags: Record<string, string>) {
    this.settings = settings;
    this.handle = handle;
    this.tags = tags;
  }

  /** True until the sandbox is terminated or times out. */
  get running(): boolean {
    return this.#result === undefined;
  }

  /** `GenericResult` (proto3 JSON) once ended, else `undefined`. */
  get result(): { readonly status: SandboxEnd; readonly exitcode: number; readonly exception: string } | undefined {
    return this.#result;
  }

  /** Arm the lifetime and idle timers; `onTimeout` ends the sandbox. */
  arm(onTimeout: (sandbox: EmulatedSandbox, reason: string) => void): void {
    this.#onTimeout = onTimeout;
    this.#lifetimeTimer = setTimeout(
      () => onTimeout(this, `the sandbox ran past its timeout of ${this.settings.timeoutSecs}s`),
      this.settings.timeoutSecs * 1000,
    );
    this.#lifetimeTimer.unref();
    this.touch();
  }

  /** Activity: restart the idle clock (it only runs while no exec is running). */
  touch(): void {
    clearTimeout(this.#idleTimer);
    const idleSecs = this.settings.idleTimeoutSecs;
    if (idleSecs === undefined || !this.running || !this.#onTimeout) return;
    if (this.#execs.list().some((exec) => exec.exit === undefined)) return;
    const onTimeout = this.#onTimeout;
    this.#idleTimer = setTimeout(() => onTimeout(this, `the sandbox was idle for ${idleSecs}s`), idleSecs * 1000);
    this.#idleTimer.unref();
  }

  /** Register an exec; it touches the sandbox when it ends. */
  addExec(exec: ExecProcess): void {
    this.#execs.add(exec.execId, exec);
    clearTimeout(this.#idleTimer);
    void exec.done.then(() => this.touch());
  }

  /** Forget an exec that never started. */
  removeExec(execId: string): void {
    this.#execs.delete(execId);
    this.touch();
  }

  /** An exec by id, else `undefined`. */
  findExec(execId: string): ExecProcess | undefined {
    return this.#execs.get(execId);
  }

  /** An exec by id, else `NOT_FOUND`. */
  exec(execId: string): ExecProcess {
    const exec = this.#execs.get(execId);
    if (!exec) throw new GrpcError("NOT_FOUND", `exec ${execId} not found in task ${this.settings.taskId}`);
    return exec;
  }

  /** Record the end, stop the timers and kill every exec; resolves once they have ended. Idempotent. */
  async finish(status: SandboxEnd, exception: string): Promise<boolean> {
    if (this.#result) return false;
    this.#result = { status, exitcode: status === "GENERIC_STATUS_TIMEOUT" ? 124 : 137, exception };
    clearTimeout(this.#lifetimeTimer);
    clearTimeout(this.#idleTimer);
    for (const waiter of [...this.#finishWaiters]) waiter();
    await this.#execs.killAll((exec) => exec.kill());
    return true;
  }

  /** Resolves once the sandbox has ended, or after `timeoutMs`, or when `signal` aborts. */
  waitFinished(timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (!this.running || timeoutMs <= 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#finishWaiters.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.#finishWaiters.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }
}
