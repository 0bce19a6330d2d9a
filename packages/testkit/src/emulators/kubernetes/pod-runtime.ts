/**
 * What runs behind one emulated pod: a sandbox on the backend runtime (its
 * own filesystem, kept while the Sandbox is suspended, so `/workspace`
 * survives), the environment its commands get, and every process started
 * in it, so that suspending or deleting the pod ends them.
 *
 * @module
 */

import type { SandboxHandle, SandboxRuntime } from "@sandport/core";
import { destroyBackendSandbox } from "../harness/backend.js";

/** Something running in a pod that ends when the pod goes. */
export interface PodProcess {
  /** Stop it now (the pod is going away). */
  stop(): Promise<void>;
}

/** The backend side of one Sandbox. */
export class PodRuntime {
  readonly #processes = new Set<PodProcess>();
  #running = false;

  constructor(
    readonly runtime: SandboxRuntime,
    readonly handle: SandboxHandle,
    /** Environment every command in the pod gets (the template's and the claim's `env`). */
    readonly env: Readonly<Record<string, string>>,
    /** True when the pod runs sandboxd (a container named `sandboxd`). */
    readonly sandboxd: boolean,
    /** The pod's fake IP. */
    readonly podIp: string,
    /**
     * The host directory each of the pod's commands sees bound at
     * `/workspace` (see `inPodMount`); `undefined` when the backend gives each
     * sandbox its own `/workspace`.
     */
    readonly hostWorkspace?: string,
  ) {}

  /** True while the pod exists (not suspended, not deleted). */
  get running(): boolean {
    return this.#running;
  }

  /** The pod came up. */
  markRunning(): void {
    this.#running = true;
  }

  /** Track a process until it ends; refused (false) when the pod is not running. */
  track(process: PodProcess): boolean {
    if (!this.#running) return false;
    this.#processes.add(process);
    return true;
  }

  /** The process ended by itself. */
  untrack(process: PodProcess): void {
    this.#processes.delete(process);
  }

  /** The pod goes away (suspend or delete): every tracked process is stopped. */
  async terminate(): Promise<void> {
    this.#running = false;
    const processes = [...this.#processes];
    this.#processes.clear();
    await Promise.all(processes.map((process) => process.stop().catch(() => {})));
  }

  /** The Sandbox is gone: the pod's processes and the backend sandbox (its files) go too. */
  async destroy(): Promise<void> {
    await this.terminate();
    await destroyBackendSandbox(this.runtime, this.handle);
  }
}

let nextAddress = 2;

/** A fresh fake pod IP in 10.244.0.0/16. */
export function fakePodIp(): string {
  const address = nextAddress++;
  return `10.244.${Math.floor(address / 254) % 256}.${(address % 254) + 1}`;
}
