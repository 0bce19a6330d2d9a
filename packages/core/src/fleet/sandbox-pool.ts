import { randomUUID } from "node:crypto";
import { invalidRequest, toSandportError } from "../errors/factories.js";
import type { SandportError } from "../errors/sandport-error.js";
import { ContainedListener } from "../orchestrator/listener-errors.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { abortError } from "../timing/abort.js";
import { refuseUnknownShape } from "../validation/known-keys.js";
import { validateTimeoutMs } from "../validation/numbers.js";
import { type FleetClock, SYSTEM_CLOCK } from "./fleet-clock.js";
import { LeaseQueue } from "./lease-queue.js";
import { allUnhealthy, healthProblem, leaseDeadline, poolClosed, UNHEALTHY_IN_A_ROW } from "./pool-checks.js";
import type { PoolCloseReport, PoolEvent, PoolFailure, ReplaceReason } from "./pool-events.js";
import { reclaimLeftovers, settleFailedLaunch } from "./pool-launch.js";
import {
  createLease,
  LEASE_OPTION_KEYS,
  type LeaseOptions,
  type LeaseState,
  RELEASE_OPTION_KEYS,
  type ReleaseOptions,
  type SandboxLease,
} from "./pool-lease.js";
import { type ResolvedPoolOptions, resolvePoolOptions, type SandboxPoolOptions } from "./pool-options.js";
import { UsageMeter } from "./usage/usage-meter.js";
import { cleanWorkspace, restorableLayout, type WorkspaceLayout } from "./workspace-reset.js";

/** One sandbox the pool owns. */
interface Member<H extends SandboxHandle> {
  readonly handle: H;
  /** When it last became idle (the pool clock). */
  idleSince: number;
  /** Its workspace at launch, when `reset: "clean-workspace"` can restore it (only empty directories). */
  fresh: WorkspaceLayout | undefined;
  /** Its life, from the launch's answer to its destroy. */
  readonly meter: UsageMeter;
}

interface LeaseEntry<H extends SandboxHandle> {
  readonly member: Member<H>;
  readonly setState: (state: LeaseState) => void;
}

/** Options of {@link SandboxPool.close}. */
export interface PoolCloseOptions {
  /** How long to wait for leases still out to be released before destroying their sandboxes. Default 0. */
  readonly drainMs?: number;
}

/**
 * Keeps sandboxes of one launch spec launched and ready on any runtime, and
 * lends them out: `lease()` returns one already launched (or waits, within
 * its deadline, for one being launched or released), `release()` gives it
 * back to be reset or destroyed, `close()` destroys everything the pool owns
 * and reports what it could not.
 *
 * Every sandbox carries the label `sandport-pool: <poolId>`. Opening a pool
 * destroys every sandbox carrying its id (what a process that ended without
 * `close` left), so the runtime must have `findByLabels`; one without is
 * refused with `UNSUPPORTED`. Idle sandboxes past `maxIdleMs`, or failing the
 * health check (`maintain()`, and before each lease where the runtime does
 * not declare `warmLease`), are destroyed and replaced. Failures are never
 * dropped: each is an event and is listed by `close()`.
 */
export class SandboxPool<H extends SandboxHandle = SandboxHandle> {
  /** The runtime the pool launches on. */
  readonly runtime: SandboxRuntime<H>;
  /** The pool's id (its sandboxes' `sandport-pool` label). */
  readonly poolId: string;
  readonly #options: ResolvedPoolOptions;
  readonly #clock: FleetClock;
  /** Wall time, and the pool clock's reading, when the pool was made: usage dates are wall time. */
  readonly #epoch = Date.now();
  readonly #clockAtOpen: number;
  readonly #listener: ContainedListener<PoolEvent>;
  /** Every launched sandbox not yet destroyed: idle, leased, being checked, reset or destroyed. */
  readonly #members = new Set<Member<H>>();
  readonly #idle: Member<H>[] = [];
  readonly #waiters: LeaseQueue<Member<H>>;
  readonly #leases = new Map<SandboxLease<H>, LeaseEntry<H>>();
  readonly #tasks = new Set<Promise<unknown>>();
  readonly #failures: PoolFailure[] = [];
  /** Launches not yet offered (launching, or listing their fresh workspace). */
  #launching = 0;
  /** Members out of the idle list that go back to it unless they fail (a reset, a maintenance check). */
  #returning = 0;
  /** Set after a launch failed: the background refill to `minIdle` waits for the next `lease()` or `maintain()`. */
  #refillPaused = false;
  #closing: Promise<PoolCloseReport> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #onLeaseEnded: (() => void) | undefined;
  /** Sandboxes released and destroyed while `close` waited for leases. */
  readonly #drained: string[] = [];

  private constructor(runtime: SandboxRuntime<H>, options: SandboxPoolOptions) {
    this.#options = resolvePoolOptions(runtime, options);
    this.runtime = runtime;
    this.poolId = this.#options.poolId;
    this.#clock = options.clock ?? SYSTEM_CLOCK;
    this.#clockAtOpen = this.#clock.now();
    this.#listener = new ContainedListener<PoolEvent>(options.onEvent, runtime.provider);
    this.#waiters = new LeaseQueue(this.#clock, runtime.provider);
  }

  /**
   * Checks the options, destroys what an earlier pool with this id left
   * (rejecting when it cannot even search for it), then starts launching
   * `minIdle` sandboxes in the background (`whenSettled()` waits for them).
   */
  static async open<H extends SandboxHandle>(
    runtime: SandboxRuntime<H>,
    options: SandboxPoolOptions,
  ): Promise<SandboxPool<H>> {
    const pool = new SandboxPool(runtime, options);
    await pool.#reclaim();
    pool.#fill();
    const every = pool.#options.maintainEveryMs;
    if (every !== undefined) {
      pool.#timer = setInterval(() => void pool.maintain(), every);
      pool.#timer.unref?.();
    }
    return pool;
  }

  /** What the pool holds now. */
  stats(): { idle: number; leased: number; launching: number; owned: number; waiting: number } {
    return {
      idle: this.#idle.length,
      leased: this.#leases.size,
      launching: this.#launching,
      owned: this.#members.size,
      waiting: this.#waiters.length,
    };
  }

  /** Resolves once no launch, reset, check or destroy the pool started is still running. */
  async whenSettled(): Promise<void> {
    while (this.#tasks.size > 0) await Promise.allSettled([...this.#tasks]);
  }

  /**
   * Lends out a launched sandbox: an idle one (checked first where
   * `checkBeforeLease`; one past `maxIdleMs` or failing is replaced and the
   * next taken), else one launched or released for this call. Rejects with
   * `DEADLINE_EXCEEDED` past `timeoutMs`, `ABORTED` on `signal`, the launch's
   * error when the launch made for it failed, the check's error after three
   * sandboxes in a row failed it, and `INVALID_REQUEST` once the pool is closed.
   */
  async lease(options: LeaseOptions = {}): Promise<SandboxLease<H>> {
    refuseUnknownShape(options, LEASE_OPTION_KEYS, "SandboxPool lease options");
    const timeoutMs = validateTimeoutMs(options.timeoutMs, "lease timeoutMs") ?? this.#options.leaseTimeoutMs;
    if (this.#closing) throw poolClosed(this.poolId);
    const started = this.#clock.now();
    this.#refillPaused = false;
    let unhealthy = 0;
    for (;;) {
      const member = await this.#take(timeoutMs - (this.#clock.now() - started), timeoutMs, options.signal);
      if (this.#clock.now() - member.idleSince > this.#options.maxIdleMs) {
        this.#replace(member, "expired");
        continue;
      }
      if (this.#options.checkBeforeLease) {
        const problem = await this.#track(this.#check(member));
        if (this.#closing) throw poolClosed(this.poolId);
        if (problem) {
          this.#replace(member, "unhealthy", problem);
          // A check that fails on sandbox after sandbox says the spec or the check is broken: stop launching.
          if (++unhealthy >= UNHEALTHY_IN_A_ROW) throw allUnhealthy(this.runtime.provider, this.poolId, problem);
          continue;
        }
      }
      const { lease, setState } = createLease(member.handle, this.poolId);
      this.#leases.set(lease, { member, setState });
      this.#listener.emit({
        type: "leased",
        sandboxId: member.handle.id,
        waitedMs: this.#clock.now() - started,
        idle: this.#idle.length,
      });
      this.#fill();
      return lease;
    }
  }

  /**
   * Takes a lease back. `mode: "reset"` (default) readies the sandbox for
   * another lease by the pool's `reset`: `replace` destroys it (a fresh one is
   * launched in the background), `clean-workspace` empties its workspace,
   * proves it laid out as at launch, checks its health and keeps it (replacing
   * it when any of that fails). `mode: "destroy"` destroys it. Resolves once
   * that is done; rejects when the sandbox could not be destroyed (it is also
   * in `close()`'s report). A lease not of this pool, or no longer out, is
   * refused with `INVALID_REQUEST`.
   */
  async release(lease: SandboxLease<H>, options: ReleaseOptions = {}): Promise<void> {
    refuseUnknownShape(options, RELEASE_OPTION_KEYS, "SandboxPool release options");
    const mode = options.mode ?? "reset";
    if (mode !== "reset" && mode !== "destroy") {
      throw invalidRequest('SandboxPool release options.mode must be "reset" or "destroy"', { field: "mode" });
    }
    const entry = this.#leases.get(lease);
    if (!entry) {
      const why = lease?.poolId === this.poolId ? `already ${lease.state}` : "not a lease of this pool";
      throw invalidRequest(`cannot release sandbox ${lease?.handle?.id}: ${why}`, { state: lease?.state });
    }
    entry.setState("released");
    this.#leases.delete(lease);
    this.#listener.emit({ type: "released", sandboxId: lease.handle.id, mode });
    if (this.#leases.size === 0) this.#onLeaseEnded?.();
    const { member } = entry;
    if (mode === "destroy" || this.#closing) {
      const closing = this.#closing !== undefined;
      const error = await this.#track(this.#destroy(member));
      if (error) throw error;
      if (closing) this.#drained.push(member.handle.id);
      this.#listener.emit({ type: "destroyed", sandboxId: member.handle.id, reason: "released" });
      this.#fill();
      return;
    }
    if (this.#options.reset === "replace" || member.fresh === undefined) {
      const error = await this.#replace(member, "reset");
      if (error) throw error;
      return;
    }
    this.#returning++;
    const problem = await this.#track(this.#clean(member));
    this.#returning--;
    if (problem === undefined) {
      this.#offer(member, this.#clock.now());
      return;
    }
    const error = await this.#replace(member, "reset-failed", problem);
    if (error) throw error;
  }

  /**
   * Replaces every idle sandbox past `maxIdleMs` or failing its health check,
   * then launches up to `minIdle` again (also after an earlier launch failure
   * paused that). Runs every `maintainEveryMs` when set. Never throws: what
   * fails is an event and in `close()`'s report.
   */
  async maintain(): Promise<{ readonly checked: number; readonly replaced: number }> {
    if (this.#closing) return { checked: 0, replaced: 0 };
    this.#refillPaused = false;
    const due = this.#idle.splice(0);
    let replaced = 0;
    this.#returning += due.length;
    await Promise.all(
      due.map(async (member) => {
        const expired = this.#clock.now() - member.idleSince > this.#options.maxIdleMs;
        const problem = expired ? undefined : await this.#track(this.#check(member));
        this.#returning--;
        if (expired || problem) {
          replaced++;
          await this.#replace(member, expired ? "expired" : "unhealthy", problem);
        } else this.#offer(member, member.idleSince);
      }),
    );
    this.#fill();
    return { checked: due.length, replaced };
  }

  /**
   * Stops lending (waiting `lease()` calls reject), waits up to `drainMs` for
   * leases still out, lets running launches, resets and checks end, then
   * destroys every sandbox the pool owns (leases still out are `revoked`).
   * Never throws: the report lists what was destroyed and every failure of
   * the pool's life. Calling it again returns the same report.
   */
  close(options: PoolCloseOptions = {}): Promise<PoolCloseReport> {
    refuseUnknownShape(options, ["drainMs"], "SandboxPool close options");
    const drainMs = validateTimeoutMs(options.drainMs, "close drainMs") ?? 0;
    this.#closing ??= this.#shutdown(drainMs);
    return this.#closing;
  }

  async #shutdown(drainMs: number): Promise<PoolCloseReport> {
    clearInterval(this.#timer);
    this.#waiters.rejectAll(() => poolClosed(this.poolId));
    if (drainMs > 0 && this.#leases.size > 0) {
      const stop = new AbortController();
      const drained = new Promise<void>((resolve) => {
        this.#onLeaseEnded = resolve;
      });
      await Promise.race([drained, this.#clock.sleep(drainMs, stop.signal).catch(() => {})]);
      stop.abort();
    }
    const revokedLeases: string[] = [];
    for (const [lease, entry] of this.#leases) {
      entry.setState("revoked");
      revokedLeases.push(lease.handle.id);
    }
    this.#leases.clear();
    await this.whenSettled();
    const destroyed: string[] = [...this.#drained];
    await Promise.all(
      [...this.#members].map(async (member) => {
        if ((await this.#destroy(member)) !== undefined) return;
        destroyed.push(member.handle.id);
        this.#listener.emit({ type: "destroyed", sandboxId: member.handle.id, reason: "closed" });
      }),
    );
    this.#idle.length = 0;
    this.#listener.emit({ type: "closed", destroyed: destroyed.length, failures: this.#failures.length });
    return {
      ok: this.#failures.length === 0,
      destroyed,
      revokedLeases,
      failures: [...this.#failures],
      listenerErrors: [...this.#listener.errors],
    };
  }

  /** Destroys what an earlier pool with this id left. */
  async #reclaim(): Promise<void> {
    const { reclaimed, failures } = await reclaimLeftovers(this.runtime, this.poolId, this.#options.timeouts);
    for (const sandboxId of reclaimed) this.#listener.emit({ type: "reclaimed", sandboxId });
    for (const failure of failures) this.#fail(failure);
  }

  /** Launches until idle (and arriving) sandboxes meet the demand, within `max`. */
  #fill(): void {
    if (this.#closing) return;
    const { minIdle, max } = this.#options;
    const demand = this.#waiters.length + (this.#refillPaused ? 0 : minIdle);
    while (
      this.#idle.length + this.#launching + this.#returning < demand &&
      this.#members.size + this.#launching < max
    ) {
      this.#launchOne();
    }
  }

  #launchOne(): void {
    this.#launching++;
    const launchKey = randomUUID();
    void this.#track(
      (async () => {
        const started = this.#clock.now();
        let handle: H;
        try {
          handle = await this.runtime.launch(
            { ...this.#options.launch, launchKey },
            { timeoutMs: this.#options.timeouts.launchMs },
          );
        } catch (raw) {
          this.#launching--;
          const error = toSandportError(raw, this.runtime.provider);
          this.#listener.emit({ type: "launch-failed", launchKey, error });
          this.#refillPaused = true;
          this.#waiters.rejectOldest(error);
          for (const failure of await settleFailedLaunch(this.runtime, launchKey, error, this.#options.timeouts)) {
            this.#fail(failure);
          }
          return;
        }
        this.#listener.emit({ type: "launched", sandboxId: handle.id, durationMs: this.#clock.now() - started });
        const { fresh, problem } =
          this.#options.reset === "clean-workspace"
            ? await restorableLayout(this.runtime, handle, this.#options.timeouts.execMs)
            : {};
        const member: Member<H> = { handle, idleSince: this.#clock.now(), fresh, meter: this.#meter(handle) };
        this.#launching--;
        this.#members.add(member);
        if (problem) this.#replace(member, "unhealthy", problem);
        else this.#offer(member, this.#clock.now());
      })(),
    );
  }

  /** Hands `member` to the first waiting `lease()`, or keeps it idle. */
  #offer(member: Member<H>, idleSince: number): void {
    member.idleSince = idleSince;
    if (this.#closing || !this.#waiters.offer(member)) this.#idle.push(member);
  }

  /** An idle sandbox, or one that becomes idle within `remainingMs`. */
  #take(remainingMs: number, timeoutMs: number, signal: AbortSignal | undefined): Promise<Member<H>> {
    if (signal?.aborted) return Promise.reject(abortError(signal, this.runtime.provider, "lease"));
    const idle = this.#idle.shift();
    if (idle) return Promise.resolve(idle);
    const waiting = this.#waiters.wait(remainingMs, signal, () =>
      leaseDeadline(this.runtime.provider, this.poolId, timeoutMs, { ...this.stats(), max: this.#options.max }),
    );
    this.#fill();
    return waiting;
  }

  /** Runs the health check: `undefined` when it passes, else why not. Never throws. */
  #check(member: Member<H>): Promise<SandportError | undefined> {
    const { healthCheck, timeouts } = this.#options;
    return healthProblem(this.runtime, member.handle, healthCheck, timeouts.execMs);
  }

  /** Cleans the workspace back to its launch layout, then checks health: `undefined` on success. Never throws. */
  async #clean(member: Member<H>): Promise<SandportError | undefined> {
    const started = this.#clock.now();
    try {
      await cleanWorkspace(this.runtime, member.handle, member.fresh as WorkspaceLayout, this.#options.timeouts.execMs);
    } catch (error) {
      return toSandportError(error, this.runtime.provider);
    }
    const problem = await this.#check(member);
    if (!problem) {
      this.#listener.emit({ type: "reset", sandboxId: member.handle.id, durationMs: this.#clock.now() - started });
    }
    return problem;
  }

  /** Destroys `member` and refills; resolves with the destroy's error, if any (also recorded). */
  #replace(member: Member<H>, reason: ReplaceReason, error?: SandportError): Promise<SandportError | undefined> {
    return this.#track(
      (async () => {
        const failed = await this.#destroy(member);
        if (!failed) {
          this.#listener.emit({
            type: "replaced",
            sandboxId: member.handle.id,
            reason,
            ...(error === undefined ? {} : { error }),
          });
        }
        this.#fill();
        return failed;
      })(),
    );
  }

  /**
   * Destroys `member`, which stops being the pool's either way; a failure is
   * recorded and returned. Its usage is reported either way.
   */
  async #destroy(member: Member<H>): Promise<SandportError | undefined> {
    try {
      await this.runtime.destroy(member.handle, { timeoutMs: this.#options.timeouts.destroyMs });
      member.meter.end("destroyed");
      return undefined;
    } catch (raw) {
      const error = toSandportError(raw, this.runtime.provider);
      member.meter.end("teardown-failed");
      this.#fail({ operation: "destroy", sandboxId: member.handle.id, error });
      return error;
    } finally {
      this.#members.delete(member);
      this.#listener.emit({ type: "usage", usage: member.meter.report(this.#options.prices) });
    }
  }

  /** A meter of `handle`'s life on the pool's clock (wall time at the pool's opening, plus the clock's advance). */
  #meter(handle: H): UsageMeter {
    const { resources } = this.#options.launch;
    return new UsageMeter({
      sandboxId: handle.id,
      runtime: { index: 0, provider: this.runtime.provider },
      reused: false,
      ...(handle.createdAt === undefined ? {} : { createdAt: handle.createdAt }),
      ...(resources === undefined ? {} : { resources }),
      now: () => this.#epoch + (this.#clock.now() - this.#clockAtOpen),
    });
  }

  #fail(failure: PoolFailure): void {
    this.#failures.push(failure);
    this.#listener.emit({ type: "failure", failure });
  }

  /** Keeps `work` among the pool's background tasks until it settles. */
  #track<T>(work: Promise<T>): Promise<T> {
    this.#tasks.add(work);
    const done = () => this.#tasks.delete(work);
    work.then(done, done);
    return work;
  }
}
