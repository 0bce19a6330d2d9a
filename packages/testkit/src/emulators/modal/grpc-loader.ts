import type * as Grpc from "@grpc/grpc-js";
import type { RetryDetails } from "./grpc-server.js";
import type { ModalWire } from "./wire-definitions.js";

/** The `@grpc/grpc-js` peer range the emulator supports. */
export const GRPC_JS_RANGE = "^1.14.0";

/**
 * `@grpc/grpc-js`, an optional peer dependency of `@sandport/testkit`, loaded
 * when a Modal emulator starts so that importing the testkit never needs it.
 * Rejects with an error that names the package and its range.
 */
export async function loadGrpc(): Promise<typeof Grpc> {
  try {
    const module = (await import("@grpc/grpc-js")) as typeof Grpc & { default?: typeof Grpc };
    return module.Server ? module : (module.default as typeof Grpc);
  } catch (error) {
    throw new Error(
      `the Modal emulator needs the optional peer dependency "@grpc/grpc-js" (${GRPC_JS_RANGE}) of ` +
        `@sandport/testkit, which could not be loaded: ${error instanceof Error ? error.message : String(error)}. ` +
        "Install it next to @sandport/testkit.",
      { cause: error },
    );
  }
}

/**
 * `grpc-status-details-bin` for a status that asks the client to come back
 * later: a `google.rpc.Status` whose one detail is Modal's `RPCRetryPolicy`,
 * which the SDK reads to wait `retryAfterSecs` and retry by itself.
 */
export function retryDetailsEncoder(wire: ModalWire): RetryDetails {
  return (code, message, retryAfterSeconds) => {
    const policy = wire.retryPolicy.encode(wire.retryPolicy.fromJSON({ retryAfterSecs: retryAfterSeconds })).finish();
    const status = wire.rpcStatus.fromJSON({
      code,
      message,
      details: [
        { typeUrl: "type.googleapis.com/modal.client.RPCRetryPolicy", value: Buffer.from(policy).toString("base64") },
      ],
    });
    return wire.rpcStatus.encode(status).finish();
  };
}
