import { abortError } from "@sandport/core";
import type { MsbBackendScope } from "./sdk-types.js";

/**
 * The backend one runtime is bound to, as the SDK's native layer takes it.
 * Every field is explicit, so neither `MSB_BACKEND`, `MSB_API_URL`,
 * `MSB_API_KEY`, `MSB_PROFILE` nor the `active_profile` of
 * `$MSB_HOME/config.json` can choose it.
 */
export type BackendBinding =
  | { readonly kind: "cloud"; readonly url: string; readonly apiKey: string }
  | { readonly kind: "local" };

/** One call waiting for its backend to become the default. */
interface Waiter {
  readonly key: string;
  readonly binding: BackendBinding;
  readonly scope: MsbBackendScope;
  admit(): void;
}

/** The backend that is the default now, and how many calls use it. */
interface Holder {
  readonly key: string;
  readonly scope: MsbBackendScope;
  readonly token: number;
  calls: number;
}

/**
 * Who may set the SDK's process-wide default backend, and when.
 *
 * The SDK has no per-call backend: its static entry points (`Sandbox.builder
 * (...).create()`, `Sandbox.get`, `Sandbox.listWith`, `Sandbox.start`,
 * `Sandbox.remove`) use the process-wide default, and the `Sandbox` or
 * `SandboxHandle` they produce keeps that backend for its own later calls.
 * The default is read on one of the SDK's worker threads some time after the
 * call is made, not when it is made, so setting it just around the call is
 * not enough (tested: a few calls in a hundred then go to the backend set
 * next). The gate therefore holds a backend as the default for as long as
 * any call on it is in flight: calls on the backend that holds it run at
 * once, calls on another wait (in arrival order) until the holder's calls
 * have all ended; then the previous default is restored and the next
 * backend pushed. Runtimes on one backend never wait for each other; runtimes
 * on different backends take turns and never cross.
 *
 * One gate per process, shared by every copy of this package loaded (ESM and
 * CJS builds alike): it lives on `globalThis`.
 */
export class BackendGate {
  #holder: Holder | undefined;
  readonly #waiting: Waiter[] = [];

  /**
   * Makes `call` (an SDK entry-point call) with `binding` as the default
   * backend, and keeps it the default until the call's promise settles.
   * Rejects `ABORTED` (without calling) when `signal` fires while waiting.
   */
  async run<T>(
    scope: MsbBackendScope,
    binding: BackendBinding,
    call: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    await this.#enter(scope, binding, signal);
    try {
      return await call();
    } finally {
      this.#leave();
    }
  }

  /** True while some backend is held (for tests). */
  get busy(): boolean {
    return this.#holder !== undefined || this.#waiting.length > 0;
  }

  #enter(scope: MsbBackendScope, binding: BackendBinding, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortError(signal, "microsandbox", "waiting for the default backend"));
    const key = keyOf(binding);
    const holder = this.#holder;
    if (holder === undefined && this.#waiting.length === 0) {
      this.#hold(scope, binding, key);
      return Promise.resolve();
    }
    // Joining the holder is fair only while nobody waits for another backend.
    if (holder?.key === key && holder.scope === scope && this.#waiting.length === 0) {
      holder.calls += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(abortError(signal as AbortSignal, "microsandbox", "waiting for the default backend"));
      };
      const waiter: Waiter = {
        key,
        binding,
        scope,
        admit: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #hold(scope: MsbBackendScope, binding: BackendBinding, key: string): void {
    const token =
      binding.kind === "cloud"
        ? scope.pushDefaultBackend("cloud", binding.url, binding.apiKey, null)
        : scope.pushDefaultBackend("local", null, null, null);
    this.#holder = { key, scope, token, calls: 1 };
  }

  #leave(): void {
    const holder = this.#holder as Holder;
    holder.calls -= 1;
    if (holder.calls > 0) return;
    holder.scope.popDefaultBackend(holder.token);
    this.#holder = undefined;
    const next = this.#waiting[0];
    if (!next) return;
    this.#hold(next.scope, next.binding, next.key);
    (this.#holder as unknown as Holder).calls = 0;
    // Every waiter on the same backend goes now; the others keep their turn.
    for (const waiter of [...this.#waiting]) {
      if (waiter.key !== next.key || waiter.scope !== next.scope) continue;
      this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
      (this.#holder as unknown as Holder).calls += 1;
      waiter.admit();
    }
  }
}

/** The identity of a binding (kept in memory only: the API key is part of it). */
function keyOf(binding: BackendBinding): string {
  return binding.kind === "cloud" ? `cloud\u0000${binding.url}\u0000${binding.apiKey}` : "local";
}

const GATE = Symbol.for("@sandport/microsandbox.backend-gate");

/** The process's gate (created on first use). */
export function backendGate(): BackendGate {
  const global = globalThis as unknown as Record<symbol, BackendGate | undefined>;
  global[GATE] ??= new BackendGate();
  return global[GATE];
}
