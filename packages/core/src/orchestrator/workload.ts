import { EXEC_REQUEST_KEYS, type ExecRequest } from "../port/exec-request.js";
import type { FileInput } from "../port/file-input.js";
import type { Labels } from "../port/labels.js";
import type { LaunchSpec } from "../port/launch-spec.js";
import { keyList } from "../validation/known-keys.js";

/** Use an existing sandbox instead of launching one: by id (needs `getById`) or by labels (needs `findByLabels`). */
export interface ReuseSpec {
  readonly reuse: { readonly id: string } | { readonly labels: Labels };
}

/** How a workload gets its sandbox: a fresh launch, or reuse of an existing one. */
export type AcquireSpec = LaunchSpec | ReuseSpec;

/**
 * What happens to the sandbox when the workload ends:
 * `always` destroy it (the default); `on-success` destroy it only when every
 * step exited 0 and nothing failed, keeping it for inspection otherwise; `keep` never destroy it.
 */
export type TeardownPolicy = "always" | "on-success" | "keep";

/** One command of a workload. */
export type WorkloadStep = ExecRequest & {
  /** Name for events and results. Default: `step <index>`. */
  readonly name?: string;
  /** Run the next steps even if this one exits non-zero. Default `false`: stop at the first failure. */
  readonly continueOnFailure?: boolean;
};

/**
 * A whole job for `SandboxOrchestrator.run`: acquire a sandbox, write files, run
 * steps in order, collect files, tear down by policy.
 */
export interface Workload {
  /** Launch a new sandbox or reuse one. */
  readonly launch: AcquireSpec;
  /** Files written before the first step, in one `writeFiles` call. */
  readonly files?: readonly FileInput[];
  /** Commands run in order. A non-zero exit stops the remaining ones unless `continueOnFailure`. */
  readonly steps?: readonly WorkloadStep[];
  /**
   * Workspace paths read after the steps (also after a failing step, so a test
   * report survives the failing test). A missing file fails the workload with `NOT_FOUND`.
   */
  readonly collect?: readonly string[];
  /** Default `always`. */
  readonly teardown?: TeardownPolicy;
}

/** Every key a {@link ReuseSpec} may have. */
export const REUSE_SPEC_KEYS = keyList<ReuseSpec>({ reuse: true });

/** Every key a {@link WorkloadStep} may have: those of an exec request, `name` and `continueOnFailure`. */
export const WORKLOAD_STEP_KEYS: readonly string[] = Object.freeze([
  ...EXEC_REQUEST_KEYS,
  ...keyList<Omit<WorkloadStep, keyof ExecRequest>>({ name: true, continueOnFailure: true }),
]);

/** Every key a {@link Workload} may have; any other is refused before any provider call. */
export const WORKLOAD_KEYS = keyList<Workload>({
  launch: true,
  files: true,
  steps: true,
  collect: true,
  teardown: true,
});

/** True when `spec` asks to reuse an existing sandbox. */
export function isReuseSpec(spec: AcquireSpec): spec is ReuseSpec {
  return typeof spec === "object" && spec !== null && "reuse" in spec;
}
