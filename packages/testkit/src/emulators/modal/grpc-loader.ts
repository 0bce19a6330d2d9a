import type * as Grpc from "@grpc/grpc-js";
import type { RetryDetails } from "./grpc-server.js";
import type { ModalWire } from "./wire-definitions.js";

/**
 * `@grpc/grpc-js`, loaded on first use so that importing the testkit never
 * needs it. Rejects with an error that says what to install.
 */
export async function loadGrpc(): Promise<typeof Grpc> {
  try {
    const module = (await import("@grpc/grpc-js")) as typeof Grpc & { default?: typeof Grpc };
    return module.Server ? module : (module.default as typeof Grpc);
  } catch (error) {
    throw new Error(
      "the Modal emulator serves gRPC with @grpc/grpc-js; install it (`npm install --save-dev @grpc/grpc-js`)",
      {
        cause: error,
      },
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
