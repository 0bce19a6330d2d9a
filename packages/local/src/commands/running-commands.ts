/** One command this process is running, as `destroy` needs to see it. */
interface Running {
  readonly controller: AbortController;
  readonly done: Promise<unknown>;
}

/**
 * Commands this runtime instance is running, by sandbox id, so that `destroy`
 * can stop them and wait for them before it removes the sandbox.
 */
export class RunningCommands {
  readonly #bySandbox = new Map<string, Set<Running>>();

  /**
   * Runs `task` registered under `sandboxId`. The task's signal fires when the
   * given signal does or when the sandbox is destroyed.
   */
  async track<T>(sandboxId: string, signal: AbortSignal, task: (signal: AbortSignal) => Promise<T>): Promise<T> {
    // One controller that the caller's signal also aborts: `AbortSignal.any` costs tens of µs per call.
    const controller = new AbortController();
    const forward = () => controller.abort(signal.reason);
    if (signal.aborted) forward();
    else signal.addEventListener("abort", forward, { once: true });
    const done = task(controller.signal);
    const entry: Running = { controller, done: done.catch(() => {}) };
    let set = this.#bySandbox.get(sandboxId);
    if (!set) {
      set = new Set();
      this.#bySandbox.set(sandboxId, set);
    }
    set.add(entry);
    try {
      return await done;
    } finally {
      signal.removeEventListener("abort", forward);
      set.delete(entry);
      if (set.size === 0) this.#bySandbox.delete(sandboxId);
    }
  }

  /** Stops every command of a sandbox and waits (at most `waitMs`) for them to finish. */
  async stopAll(sandboxId: string, waitMs: number): Promise<void> {
    const entries = [...(this.#bySandbox.get(sandboxId) ?? [])];
    for (const entry of entries) entry.controller.abort(new Error("sandbox destroyed"));
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    await Promise.race([Promise.all(entries.map((entry) => entry.done)), limit]);
    clearTimeout(timer);
  }
}
