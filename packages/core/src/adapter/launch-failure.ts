import { SandportError } from "../errors/sandport-error.js";
import { isOutcomeUnknown } from "./reclaim-launch.js";

/**
 * The error of a failed create: the vendor error as mapped, saying whether
 * the sandbox may exist anyway (`details.outcomeUnknown`: a dropped
 * connection, a deadline, a 5xx other than 503) and under which launch key to
 * search for it (`details.launchKey`), which is how the orchestrator
 * reconciles a launch with an unknown outcome.
 */
export function launchFailure(mapped: SandportError, cause: unknown, launchKey: string): SandportError {
  const outcomeUnknown = isOutcomeUnknown(mapped);
  return new SandportError({
    code: mapped.code,
    provider: mapped.provider,
    retryable: mapped.retryable,
    cause,
    message: outcomeUnknown
      ? `${mapped.message} (the sandbox may exist anyway: search launch key ${launchKey})`
      : mapped.message,
    details: { ...mapped.details, launchKey, outcomeUnknown },
  });
}
