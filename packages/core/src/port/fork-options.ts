import { keyList } from "../validation/known-keys.js";
import type { Labels } from "./labels.js";
import type { OpOptions } from "./op-options.js";

/** Options of `SandboxRuntime.fork`: the per-call options, plus labels for the fork in place of its source's. */
export interface ForkOptions extends OpOptions {
  /**
   * The fork's labels, replacing (not merged with) the source's; absent, the
   * fork carries the source's. Reserved `sandport.*` keys are refused.
   */
  readonly labels?: Labels;
}

/** Every key a {@link ForkOptions} may have; any other is refused with `INVALID_REQUEST`. */
export const FORK_OPTION_KEYS = keyList<ForkOptions>({ labels: true, signal: true, timeoutMs: true });
