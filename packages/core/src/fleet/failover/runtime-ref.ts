/**
 * Which of an orchestrator's runtimes something happened on: its position in
 * the list the orchestrator was given (`0` for a single runtime, and for the
 * first of a list) and its provider name. Two runtimes of one provider (two
 * local roots, two accounts) differ by `index`.
 */
export interface RuntimeRef {
  /** Position in the orchestrator's runtime list, from 0. */
  readonly index: number;
  /** The runtime's `provider`. */
  readonly provider: string;
}
