import { FORK_OPTION_KEYS, type ForkOptions } from "../port/fork-options.js";
import type { Labels } from "../port/labels.js";
import type { OpOptions } from "../port/op-options.js";
import { refuseUnknownShape } from "./known-keys.js";
import { validateLabels } from "./labels.js";
import { validateOpOptions } from "./requests.js";

/** What {@link validateForkOptions} returns: the common options, and the fork's labels when given. */
export interface ValidatedForkOptions {
  readonly op: OpOptions | undefined;
  /** The fork's labels; `undefined`: the source's. */
  readonly labels: Labels | undefined;
}

/**
 * Checks the options of `fork` before any provider call: known keys only,
 * labels as a launch's (reserved keys refused), the common options as
 * `validateOpOptions` does. `INVALID_REQUEST` otherwise.
 */
export function validateForkOptions(options: unknown, provider?: string): ValidatedForkOptions {
  if (options === undefined) return { op: undefined, labels: undefined };
  refuseUnknownShape(options, FORK_OPTION_KEYS, "fork options", provider);
  const { labels, ...common } = options as ForkOptions;
  return {
    op: validateOpOptions(common, provider),
    labels: validateLabels(labels, { field: "labels", provider }),
  };
}
