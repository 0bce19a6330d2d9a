import type { OpOptions } from "../port/op-options.js";
import { deadlineSignal } from "../timing/deadline-signal.js";
import type { AdapterContext, CallBudget, ContextOptions } from "./adapter-context.js";
import { CONFIRM_GONE_DELAYS_MS, confirmGone } from "./confirm-gone.js";
import type { DeletePace } from "./delete-pace.js";
import { destroyUnverified } from "./sandbox-errors.js";

/**
 * Time kept back from the destroy deadline, so a destroy that cannot show
 * absence in time rejects `DESTROY_UNVERIFIED` itself, not a bare deadline.
 */
export const VERIFY_MARGIN_MS = 250;

/** The vendor primitives of {@link destroyVerified}. */
export interface DestroyPrimitives {
  /** Deadline of the call when `op.timeoutMs` is absent (the adapter's `timeouts.destroyMs`). */
  readonly timeoutMs: number;
  /**
   * One delete of a sandbox known to be ours; resolves whether it was there
   * (a not-found answer is `false`, not an error).
   */
  readonly remove: (sandboxId: string, budget: CallBudget) => Promise<boolean>;
  /**
   * One look: whether the sandbox is still there (not-found is `false`; other
   * failures throw). Its budget ends with the verification window, not the call.
   * Absent: the context's `describe` answered something.
   */
  readonly exists?: (sandboxId: string, budget: CallBudget) => Promise<boolean>;
  /**
   * For a provider whose delete answers before the sandbox is gone: the first
   * look waits the pace's estimate (at most half the verification window),
   * and what the looks found teaches it. Absent: the first look is at once.
   */
  readonly pace?: DeletePace;
}

/**
 * `destroy` of every adapter: the handle checked; a sandbox this runtime has
 * not seen checked for our marker first (`FOREIGN_SANDBOX`; absent counts as
 * destroyed); the delete; then `confirmGone` until the call's deadline less
 * {@link VERIFY_MARGIN_MS} (its first look after the `pace`'s wait, when
 * given); forgotten once gone. When absence cannot be shown
 * in time, rejects `DESTROY_UNVERIFIED` (retryable) saying why.
 */
export function destroyVerified(
  context: AdapterContext<ContextOptions, unknown, unknown, unknown>,
  handle: unknown,
  op: OpOptions | undefined,
  primitives: DestroyPrimitives,
): Promise<void> {
  const exists =
    primitives.exists ??
    (async (sandboxId: string, budget: CallBudget) =>
      (await context.describe(sandboxId, "destroy", budget)) !== undefined);
  return context.onHandle(handle, op, "destroy", primitives.timeoutMs, async (sandboxId, call) => {
    if (!context.known.isOwned(sandboxId) && !(await context.ownedInfo(sandboxId, "destroy", call))) {
      context.forget(sandboxId);
      return;
    }
    const found = await primitives.remove(sandboxId, call);
    context.forget(sandboxId, { keepOwnership: found });
    if (!found) return;
    const accepted = Date.now();
    const until = accepted + call.remainingMs() - VERIFY_MARGIN_MS;
    const { pace } = primitives;
    let looks = 0;
    const verdict = await confirmGone(
      () => {
        looks += 1;
        return lookUntil(until, call.signal, (look) => exists(sandboxId, look));
      },
      { until, signal: call.signal, ...(pace ? { delaysMs: pacedDelays(pace, until - accepted) } : {}) },
    );
    if (verdict.gone) {
      pace?.observe(Date.now() - accepted, looks === 1);
      return context.forget(sandboxId);
    }
    const why = verdict.reason === "still-present" ? "it was still listed after the delete" : "the check failed";
    throw destroyUnverified(context.provider, sandboxId, why, verdict.last);
  });
}

/** The waits before each look: the pace's first (within half the window), then the usual backoff. */
function pacedDelays(pace: DeletePace, windowMs: number): readonly number[] {
  const first = Math.max(0, Math.min(pace.firstLookMs(), Math.floor(windowMs / 2)));
  return [first, ...CONFIRM_GONE_DELAYS_MS.slice(1)];
}

/**
 * One look bounded by the verification window: its budget and signal end at
 * `until`, and it is raced against that signal as well, since an SDK may
 * notice an abort only between its own retries. A look cut off there counts
 * as a failed check, so the destroy reports itself unverified in time.
 */
function lookUntil(
  until: number,
  callSignal: AbortSignal,
  look: (budget: CallBudget) => Promise<boolean>,
): Promise<boolean> {
  const signal = deadlineSignal(Math.max(1, until - Date.now()), callSignal);
  const looking = look({ signal, remainingMs: () => Math.max(0, Math.ceil(until - Date.now())) });
  looking.catch(() => {});
  return new Promise<boolean>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    looking.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
