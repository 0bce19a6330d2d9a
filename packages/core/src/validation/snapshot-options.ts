import type { Labels } from "../port/labels.js";
import type { OpOptions } from "../port/op-options.js";
import { SNAPSHOT_OPTION_KEYS, type SnapshotOptions } from "../port/snapshot.js";
import { refuseUnknownShape } from "./known-keys.js";
import { validateLabels } from "./labels.js";
import { validateOpOptions } from "./requests.js";

/** A `snapshot` call's options after validation: the common options apart, the labels copied. */
export interface ValidatedSnapshotOptions {
  /** The common per-call options (`signal`, `timeoutMs`), `labels` removed. */
  readonly op: OpOptions | undefined;
  /** The snapshot's labels (`{}` when none were given). */
  readonly labels: Labels;
}

/**
 * Validates `snapshot` options: no key beyond {@link SNAPSHOT_OPTION_KEYS},
 * the common ones as `validateOpOptions` does, labels as a launch's (reserved
 * keys refused). `INVALID_REQUEST` otherwise, before any provider call.
 */
export function validateSnapshotOptions(options: unknown, provider?: string): ValidatedSnapshotOptions {
  if (options === undefined) return { op: undefined, labels: Object.freeze({}) };
  refuseUnknownShape(options, SNAPSHOT_OPTION_KEYS, "snapshot options", provider);
  const { labels, ...common } = options as SnapshotOptions;
  return {
    op: validateOpOptions(common, provider),
    labels: validateLabels(labels, { field: "labels", provider }) ?? Object.freeze({}),
  };
}
