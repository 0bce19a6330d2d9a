import { sandboxNotFound } from "@sandport/core/adapter";
import { LOCAL_PROVIDER } from "../options.js";

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
  /** Sandboxes whose destroy has begun here, with how many destroys of each run: a command asked for meanwhile is `NOT_FOUND`. */
  readonly #destroying = new Map<string, number>();

  /**
   * Runs `task` registered under `sandboxId`, registered before the task
   * reaches its first `await`: call it first thing, so that a `destroy`
   * begun later always sees the command (and waits for it). The task's
   * signal fires when the given signal does or when the sandbox is destroyed,
   * with `NOT_FOUND` as its reason then: a task that has not spawned its
   * command yet must not, and throws that reason. Refused with `NOT_FOUND`
   * while the sandbox's destroy runs.
   */
  async track<T>(sandboxId: string, signal: AbortSignal, task: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.#destroying.has(sandboxId)) throw destroyed(sandboxId);
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

  /**
   * The sandbox's destroy begins: from now until {@link destroyEnded}, new
   * commands are refused `NOT_FOUND`, and those in flight are aborted with it
   * (one not spawned yet never spawns). Synchronous, so that destroy calls it
   * before its own first `await`: a command asked for in the same turn as the
   * destroy, or earlier, never starts after destroy began.
   */
  beginDestroy(sandboxId: string): void {
    this.#destroying.set(sandboxId, (this.#destroying.get(sandboxId) ?? 0) + 1);
    this.#abortAll(sandboxId);
  }

  /**
   * Stops every command of a sandbox whose destroy began (see {@link beginDestroy})
   * and waits (at most `waitMs`) for them to finish.
   */
  async stopAll(sandboxId: string, waitMs: number): Promise<void> {
    const entries = this.#abortAll(sandboxId);
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    await Promise.race([Promise.all(entries.map((entry) => entry.done)), limit]);
    clearTimeout(timer);
  }

  /**
   * A destroy that {@link beginDestroy} announced ended (done, or failed and may be retried): once no other
   * destroy of the sandbox runs, commands are no longer refused here for it.
   */
  destroyEnded(sandboxId: string): void {
    const left = (this.#destroying.get(sandboxId) ?? 1) - 1;
    if (left > 0) this.#destroying.set(sandboxId, left);
    else this.#destroying.delete(sandboxId);
  }

  /** Aborts every command of the sandbox in flight with `NOT_FOUND`; returns them. */
  #abortAll(sandboxId: string): Running[] {
    const entries = [...(this.#bySandbox.get(sandboxId) ?? [])];
    for (const entry of entries) entry.controller.abort(destroyed(sandboxId));
    return entries;
  }
}

function destroyed(sandboxId: string) {
  return sandboxNotFound(LOCAL_PROVIDER, sandboxId, "destroyed while the command was starting");
}
