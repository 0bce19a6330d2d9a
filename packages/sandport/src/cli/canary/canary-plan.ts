import { CliError } from "../cli-error.js";

/** The environment variable that carries the plan to the conformance child process. */
export const PLAN_VARIABLE = "SANDPORT_CANARY_PLAN";

/** The label every sandbox of one canary run carries, with the run id as value (a sweep can target it). */
export const RUN_LABEL = "sandport-canary-run";

/**
 * What the conformance child needs to build the same runtime as the parent:
 * the provider flags, never a credential (the child reads those from the
 * environment it inherits, through the same code), and what to skip.
 */
export interface CanaryPlan {
  readonly provider: string;
  readonly options: readonly string[];
  readonly endpoint: string | undefined;
  readonly owner: string;
  readonly runId: string;
  /** Conformance check ids to skip, each with its reason. */
  readonly skip: Readonly<Record<string, string>>;
}

/** Reads the plan from the child's environment. */
export function readPlan(env: NodeJS.ProcessEnv): CanaryPlan {
  const text = env[PLAN_VARIABLE];
  if (text === undefined)
    throw new CliError("USAGE", `${PLAN_VARIABLE} is not set: this file is run by \`sandport canary\``);
  return JSON.parse(text) as CanaryPlan;
}
