import { SandportError } from "../errors/sandport-error.js";

/**
 * Whether `error` is a runtime's refusal of a launch's network policy: the
 * `UNSUPPORTED` it throws, before anything is created, for a `LaunchSpec.network`
 * it cannot enforce (`details.feature` names a network feature: `network allow
 * lists`, `network: "none"`, ...). A bridge turns it into its framework's own
 * "unsupported" error, this error as the `cause`; other failures pass on.
 */
export function isNetworkRefusal(error: unknown): error is SandportError {
  if (!SandportError.hasCode(error, "UNSUPPORTED")) return false;
  const feature = error.details.feature;
  return typeof feature === "string" && feature.startsWith("network");
}
