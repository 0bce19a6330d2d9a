import { SandportError, unsupported } from "@sandport/core";
import { loadAi, loadHarness } from "./sdk.js";

/**
 * The AI SDK's own `UnsupportedFunctionalityError` for a session member the
 * runtime cannot serve, with Sandport's `UNSUPPORTED` error (code, provider,
 * the missing method) as its `cause`. Thrown before anything is started.
 */
export async function unsupportedFunctionality(provider: string, functionality: string, needs: string): Promise<Error> {
  const { UnsupportedFunctionalityError } = await loadAi();
  const cause = unsupported(provider, functionality, `the runtime has no ${needs}`);
  const error = new UnsupportedFunctionalityError({ functionality, message: cause.message });
  return Object.assign(error, { cause });
}

/**
 * The harness's own `HarnessCapabilityUnsupportedError` for a network session
 * member the runtime cannot serve, with Sandport's `UNSUPPORTED` error as its `cause`.
 */
export async function harnessCapabilityUnsupported(
  provider: string,
  feature: string,
  reason: string,
  cause?: unknown,
): Promise<Error> {
  const { HarnessCapabilityUnsupportedError } = await loadHarness();
  const sandportError = unsupported(provider, feature, reason);
  const wrapped =
    cause === undefined
      ? sandportError
      : new SandportError({ code: "UNSUPPORTED", provider, message: sandportError.message, cause });
  return new HarnessCapabilityUnsupportedError({ message: sandportError.message, cause: wrapped });
}

/**
 * The harness's `HarnessCapabilityUnsupportedError` for what the runtime
 * itself refused with `UNSUPPORTED` (a network policy it cannot enforce, say),
 * that `SandportError` as its `cause` and its message as the error's.
 */
export async function harnessUnsupportedFrom(error: SandportError): Promise<Error> {
  const { HarnessCapabilityUnsupportedError } = await loadHarness();
  return new HarnessCapabilityUnsupportedError({ message: error.message, cause: error });
}
