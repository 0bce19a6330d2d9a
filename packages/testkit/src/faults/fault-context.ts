import assert from "node:assert/strict";
import { test } from "node:test";
import {
  LAUNCH_KEY_LABEL,
  type Labels,
  type OrchestratorOptions,
  type SandboxHandle,
  SandboxOrchestrator,
  type Workload,
  type WorkloadResult,
} from "@sandport/core";
import type { ProviderEmulator } from "../emulators/harness/types.js";
import { assertTyped, reportsPossibleLeak, type Settled, settleWithin } from "./observe.js";
import type { SettlingRuntime, WireFaultCase, WireFaultOptions } from "./options.js";

/** Fast retries for the orchestrators the cases run, so a retried call does not wait seconds. */
const FAST_RETRY = { initialDelayMs: 20, maxDelayMs: 200, jitter: "none" as const };

/** Labels that mark what a case launched (`sandport-wire-faults: <case>`), for the reader of a leak. */
const CASE_LABEL = "sandport-wire-faults";

/**
 * What every case of the wire-fault suite shares: the runtime and emulator, bounded calls, and the
 * ledger of what a case reported as possibly leaked, which `afterCase` checks the live sandboxes
 * against.
 */
export class WireFaultContext<H extends SandboxHandle> {
  readonly options: WireFaultOptions<H>;
  readonly deadlineMs: number;
  readonly hangMs: number;
  #before = new Set<string>();
  #possibleLeaks = 0;

  constructor(options: WireFaultOptions<H>) {
    this.options = options;
    this.deadlineMs = options.deadlineMs ?? 400;
    this.hangMs = options.hangMs ?? 10_000;
  }

  get runtime(): SettlingRuntime<H> {
    return this.options.runtime();
  }

  get emulator(): ProviderEmulator {
    return this.options.emulator();
  }

  /**
   * Declares one case as a test, skipped with the caller's reason when `options.skip` names it,
   * else with `unavailable` (what the options lack for it) when given.
   */
  case(id: WireFaultCase, title: string, body: () => Promise<void>, unavailable?: string): void {
    const skip = this.options.skip?.[id] ?? unavailable;
    test(`${id}: ${title}`, { skip: skip ?? false, timeout: this.hangMs * 6 }, body);
  }

  /** Waits for a runtime call, failing the case if it hangs; a possible leak it reports goes in the ledger. */
  async call<T>(call: Promise<T>, what: string): Promise<Settled<T>> {
    const outcome = await settleWithin(call, this.hangMs, what);
    if (!outcome.ok) this.noteError(outcome.error);
    return outcome;
  }

  /** Launches a sandbox for a case (no faults armed), labelled with the case. */
  async launch(id: WireFaultCase, labels: Labels = {}): Promise<H> {
    const outcome = await this.call(this.runtime.launch({ labels: { ...labels, [CASE_LABEL]: id } }), "launch");
    if (!outcome.ok) throw assertTyped(outcome.error, "a launch without faults");
    return outcome.value;
  }

  /** Destroys a case's sandbox; a typed failure is repeated once (faults are cleared by then). */
  async destroy(handle: H): Promise<void> {
    this.emulator.clearFaults();
    const first = await this.call(this.runtime.destroy(handle), "destroy");
    if (first.ok) return;
    assertTyped(first.error, "destroy");
    const second = await this.call(this.runtime.destroy(handle), "destroy, again");
    if (!second.ok) throw assertTyped(second.error, "destroy, again");
  }

  /** Runs a workload through an orchestrator with fast retries, bounded; a rejection fails the case, typed or not. */
  async run(workload: Workload, options: Partial<OrchestratorOptions<H>> = {}): Promise<WorkloadResult<H>> {
    const orchestrator = new SandboxOrchestrator(this.runtime, { retry: FAST_RETRY, ...options });
    const outcome = await this.call(orchestrator.run(workload), "the orchestrator's workload");
    if (!outcome.ok) {
      const error = assertTyped(outcome.error, "the orchestrator's workload");
      return assert.fail(`the orchestrator's workload failed: ${error.message}`);
    }
    return outcome.value;
  }

  /** Records an error's possible-leak report (an error seen outside `call`). */
  noteError(error: unknown): void {
    if (reportsPossibleLeak(error)) this.#possibleLeaks += 1;
  }

  /** Before a case: the sandboxes alive already are not the case's. */
  beforeCase(): void {
    this.#possibleLeaks = 0;
    this.#before = new Set(this.emulator.liveSandboxes().map((sandbox) => sandbox.id));
  }

  /**
   * Destroys a sandbox a case left, best effort: by the emulator's id, else by its launch key (a
   * runtime may name sandboxes otherwise than its emulator does). The case fails on the leak itself.
   */
  async #remove(id: string, launchKey: string | undefined): Promise<void> {
    const quietly = <T>(call: () => Promise<T> | undefined) => Promise.resolve(call()).catch(() => undefined);
    const byId = await quietly(() => this.runtime.getById?.(id));
    const byKey =
      byId || launchKey === undefined
        ? undefined
        : await quietly(() => this.runtime.findByLabels?.({ [LAUNCH_KEY_LABEL]: launchKey }));
    // A failure here is reported by the leak assertion that follows.
    for (const handle of byId ? [byId] : (byKey ?? [])) await quietly(() => this.runtime.destroy(handle));
  }

  /**
   * After a case: faults cleared, background work settled (each error it reports typed), then every
   * sandbox of ours the case left alive must have been reported as a possible leak. Whatever it
   * left is destroyed, so the next case starts clean.
   */
  async afterCase(): Promise<void> {
    this.emulator.clearFaults();
    const settled = await settleWithin(this.runtime.settle(), this.hangMs * 3, "runtime.settle()");
    assert.ok(settled.ok, "runtime.settle() never rejects");
    for (const error of settled.value) {
      assertTyped(error, "background work");
      this.noteError(error);
    }
    const left = this.emulator
      .liveSandboxes()
      .filter((sandbox) => !sandbox.foreign && sandbox.state !== "destroying" && !this.#before.has(sandbox.id));
    for (const sandbox of left) await this.#remove(sandbox.id, sandbox.metadata[LAUNCH_KEY_LABEL]);
    assert.ok(
      left.length <= this.#possibleLeaks,
      `${left.length} sandbox(es) left alive (${left.map((sandbox) => sandbox.id).join(", ")}), ` +
        `${this.#possibleLeaks} reported as a possible leak: every sandbox must be destroyed or reported`,
    );
  }
}
