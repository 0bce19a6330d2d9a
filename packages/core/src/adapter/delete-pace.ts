/** Bounds of {@link DeletePace}'s estimate, in milliseconds. */
export interface DeletePaceSettings {
  /** The first estimate: how long a delete is expected to take to show, before any was seen. */
  readonly initialMs: number;
  /** The shortest the estimate becomes (default 50). */
  readonly minMs?: number;
  /** The longest it becomes, however slow one delete was (default 5 000). */
  readonly maxMs?: number;
}

/** What the estimate keeps of its value after a delete the first look found gone. */
const DECAY = 0.9;

/**
 * How long a provider's accepted delete takes to show as absent, learned
 * from the deletes this runtime verified. For providers whose delete answers
 * before the sandbox is gone: the verification waits that long before its
 * first look, so one look normally proves the sandbox gone where looking at
 * once would find it still being deleted and look again. A delete the first
 * look found gone lowers the estimate a little (it may be too generous); one
 * that needed more looks raises it to the time the look that found it gone
 * was made. Always within `minMs`..`maxMs`.
 */
export class DeletePace {
  readonly #min: number;
  readonly #max: number;
  #estimate: number;

  constructor(settings: DeletePaceSettings) {
    this.#min = settings.minMs ?? 50;
    this.#max = settings.maxMs ?? 5_000;
    this.#estimate = this.#bounded(settings.initialMs);
  }

  /** The wait before the first look after a delete was accepted. */
  firstLookMs(): number {
    return Math.round(this.#estimate);
  }

  /**
   * A delete was seen gone `elapsedMs` after it was accepted, by the first
   * look (`firstLook`) or a later one.
   */
  observe(elapsedMs: number, firstLook: boolean): void {
    this.#estimate = this.#bounded(firstLook ? this.#estimate * DECAY : Math.max(this.#estimate, elapsedMs));
  }

  #bounded(ms: number): number {
    return Math.min(this.#max, Math.max(this.#min, ms));
  }
}
