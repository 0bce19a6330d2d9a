import { SandportError } from "@sandport/core";
import { PROVIDER } from "../options.js";
import type { E2BSdkModule } from "./sdk-types.js";

/** The peer dependency range this package supports. */
export const SUPPORTED_SDK_RANGE = ">=2.0.0 <3";

/**
 * Loads the `e2b` SDK: the injected module or loader when given, else
 * `import("e2b")`. This is the only runtime import of the SDK in the package.
 * A failure becomes `SDK_UNAVAILABLE` naming the package, the supported range
 * and the likely cause.
 */
export async function loadSdk(source?: E2BSdkModule | (() => Promise<E2BSdkModule>)): Promise<E2BSdkModule> {
  let loaded: unknown;
  try {
    if (typeof source === "function") loaded = await source();
    else if (source !== undefined) loaded = source;
    else loaded = await import("e2b");
  } catch (error) {
    throw new SandportError({
      code: "SDK_UNAVAILABLE",
      provider: PROVIDER,
      retryable: false,
      cause: error,
      message:
        `@sandport/e2b needs the optional peer dependency "e2b" (${SUPPORTED_SDK_RANGE}), which could not be loaded: ` +
        `${error instanceof Error ? error.message : String(error)}. ` +
        `Install it (npm install e2b) next to @sandport/e2b; e2b also needs Node >=20.18.1 (this is ${process.version}).`,
      details: { package: "e2b", range: SUPPORTED_SDK_RANGE },
    });
  }
  const sandbox = (loaded as { Sandbox?: Record<string, unknown> } | undefined)?.Sandbox;
  const missing = ["create", "connect", "kill", "getInfo", "pause", "list"].filter(
    (name) => typeof sandbox?.[name] !== "function",
  );
  if (missing.length > 0) {
    throw new SandportError({
      code: "SDK_UNAVAILABLE",
      provider: PROVIDER,
      retryable: false,
      message: `the loaded "e2b" module lacks Sandbox.${missing.join(", Sandbox.")}; @sandport/e2b supports e2b ${SUPPORTED_SDK_RANGE}`,
      details: { package: "e2b", range: SUPPORTED_SDK_RANGE, missing },
    });
  }
  return loaded as E2BSdkModule;
}
