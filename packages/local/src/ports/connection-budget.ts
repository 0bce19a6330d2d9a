/**
 * How many connections of one kind a sandbox may have the runtime hold at
 * once. A connection is counted from {@link take} until its `close`; past the
 * limit the caller refuses (closes) the new connection instead of keeping it,
 * so the runtime's file descriptors stay bounded whatever the sandbox does.
 */
export class ConnectionBudget {
  #left: number;

  /** @param limit connections held at once */
  constructor(limit: number) {
    this.#left = limit;
  }

  /** Counts `connection` until it closes; `false` (nothing counted) when the budget is spent. */
  take(connection: { once(event: "close", listener: () => void): unknown }): boolean {
    if (this.#left <= 0) return false;
    this.#left--;
    connection.once("close", () => this.#left++);
    return true;
  }
}
