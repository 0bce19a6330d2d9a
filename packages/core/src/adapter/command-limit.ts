import type { ExecResult, ResourceLimitKind } from "../port/exec-result.js";

/**
 * `result` with `limit` set by the port's rule (`ExecResult.limit`): only when
 * the runtime saw a limit enforced while the command ran (`limit` given) and
 * the command did not succeed. A command that exited 0 coped with whatever the
 * limit refused it (a retried fork, a child it let die), so it reports none.
 * Every runtime sets the field through here, so all report it alike.
 */
export function withLimit(result: ExecResult, limit: ResourceLimitKind | undefined): ExecResult {
  if (limit === undefined || result.exitCode === 0) return result;
  return { ...result, limit };
}
