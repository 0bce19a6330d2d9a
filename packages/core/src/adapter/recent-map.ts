/**
 * How many sandboxes a runtime keeps what it learnt of (ownership, a
 * connected instance, a looked-up detail) before it forgets the least
 * recently used: far more than one runtime works with at once.
 */
export const RECENT_SANDBOXES = 10_000;

/**
 * A map of at most `capacity` entries that forgets the least recently used
 * first (a read or a write is a use). For what a runtime can always learn
 * again with one more request, so that a long-lived runtime's memory does not
 * grow with every sandbox it ever touched, including those that ended on the
 * provider's side without a `destroy` here.
 */
export class RecentMap<K, V> {
  readonly #entries = new Map<K, V>();

  /** @param capacity the most entries kept (default {@link RECENT_SANDBOXES}) */
  constructor(readonly capacity: number = RECENT_SANDBOXES) {}

  /** The value of `key`, now the most recently used; `undefined` when absent. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Whether `key` is kept (not a use). */
  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** Keeps `value` under `key`, the most recently used; the least recently used goes past `capacity`. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size <= this.capacity) return;
    const oldest = this.#entries.keys().next();
    if (!oldest.done) this.#entries.delete(oldest.value);
  }

  /** Forgets `key`; true when it was kept. */
  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** How many entries are kept. */
  get size(): number {
    return this.#entries.size;
  }
}
