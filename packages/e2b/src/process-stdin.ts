import { SandportError } from "@sandport/core";
import { errorName, type VendorStdin } from "@sandport/core/adapter";
import type { E2BContext } from "./context.js";
import { PROVIDER } from "./handle.js";
import type { E2BSandbox } from "./internal/sdk-types.js";

/** Decodes stdin bytes for SDKs that send text only; keeps a byte-order mark as a character. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The stdin of a command started with `E2BRuntime.spawn`, for the kit's
 * `SpawnedProcess`: envd's `SendInput` and `CloseStdin` through the SDK
 * (`commands.sendStdin`, `commands.closeStdin`), one request each within
 * `lookupMs`. With an SDK before 2.13, which sends stdin as text only and has
 * no `closeStdin`, bytes that are not UTF-8 and the close are `UNSUPPORTED`;
 * so is the close with a sandbox whose envd predates 0.5.2.
 */
export function e2bStdin(context: E2BContext, sandbox: E2BSandbox, pid: number): VendorStdin {
  const textOnly = typeof sandbox.commands.closeStdin !== "function";
  const send = (
    operation: string,
    request: (options: { requestTimeoutMs: number; signal: AbortSignal }) => Promise<void>,
  ) =>
    context.run(undefined, { operation, sandboxId: sandbox.sandboxId }, context.options.timeouts.lookupMs, (call) =>
      request({ requestTimeoutMs: call.remainingMs(), signal: call.signal }),
    );
  return {
    write: (data) => {
      const payload = textOnly ? asText(data) : data;
      return send("write", (options) => sandbox.commands.sendStdin(pid, payload, options));
    },
    close: () => {
      const close = sandbox.commands.closeStdin;
      if (typeof close !== "function") {
        return Promise.reject(unsupportedClose("the installed e2b SDK has no commands.closeStdin (it came in 2.13)"));
      }
      return send("closeStdin", (options) =>
        close.call(sandbox.commands, pid, options).catch((error: unknown) => {
          // The SDK refuses before sending anything when the sandbox's envd is too old.
          if (errorName(error) === "SandboxError" && /support closeStdin/.test(String((error as Error).message))) {
            throw unsupportedClose(`the sandbox's envd is older than 0.5.2; rebuild its template`, error);
          }
          throw error;
        }),
      );
    },
  };
}

/** Bytes as text for SDKs that send text only, refused unless they are UTF-8 (nothing may change on the way). */
function asText(data: string | Uint8Array): string {
  if (typeof data === "string") return data;
  try {
    return strictUtf8.decode(data);
  } catch (error) {
    throw new SandportError({
      code: "UNSUPPORTED",
      provider: PROVIDER,
      retryable: false,
      cause: error,
      message: "the installed e2b SDK (before 2.13) sends stdin as text only, and these bytes are not UTF-8",
      details: { feature: "binary stdin" },
    });
  }
}

function unsupportedClose(reason: string, cause?: unknown): SandportError {
  return new SandportError({
    code: "UNSUPPORTED",
    provider: PROVIDER,
    retryable: false,
    message: `e2b cannot close a spawned command's stdin: ${reason}; kill() ends it`,
    details: { feature: "closeStdin" },
    ...(cause === undefined ? {} : { cause }),
  });
}
