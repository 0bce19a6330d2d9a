/**
 * How a doctor check came out: `ok` works; `info` a fact worth knowing;
 * `warn` something is limited (a feature refused, a credential missing); `fail`
 * something the selected providers need does not work (exit 1).
 */
export type CheckStatus = "ok" | "info" | "warn" | "fail";

/** One fact the doctor established, and what to do about it. */
export interface DoctorCheck {
  /** `host`, or the provider the check is about. */
  readonly scope: string;
  /** Short name: `node`, `bubblewrap`, `sdk e2b`, `credentials`, ... */
  readonly name: string;
  readonly status: CheckStatus;
  /** What was found, in one line. */
  readonly detail: string;
  /** What to do, when something is wrong. */
  readonly fix?: string;
}
