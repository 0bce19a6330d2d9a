import { SandportError } from "@sandport/core";
import { type RpcCode, RpcError } from "../harness/connect-rpc.js";
import { PathRefusedError } from "./paths.js";

/** A backend (port) failure or a refused path, as the Connect error envd would send. */
export function toRpcError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof PathRefusedError) return new RpcError("invalid_argument", error.message);
  if (SandportError.isInstance(error)) return new RpcError(rpcCodeOf(error), error.message);
  return new RpcError("internal", error instanceof Error ? error.message : String(error));
}

/** A backend failure or a refused path as the HTTP status envd's REST routes would send. */
export function toHttpStatus(error: unknown): number {
  if (error instanceof PathRefusedError) return 400;
  if (!SandportError.isInstance(error)) return 500;
  switch (error.code) {
    case "NOT_FOUND":
      return 404;
    case "INVALID_REQUEST":
      return 400;
    case "OUTPUT_LIMIT":
      return 507;
    default:
      return 500;
  }
}

/** The message of any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function rpcCodeOf(error: SandportError): RpcCode {
  switch (error.code) {
    case "NOT_FOUND":
      return "not_found";
    case "INVALID_REQUEST":
      return "invalid_argument";
    case "UNSUPPORTED":
      return "unimplemented";
    case "DEADLINE_EXCEEDED":
      return "deadline_exceeded";
    case "ABORTED":
      return "canceled";
    case "AUTH":
      return "permission_denied";
    case "OUTPUT_LIMIT":
      return "resource_exhausted";
    case "RATE_LIMITED":
      return "resource_exhausted";
    case "PROVIDER_UNAVAILABLE":
      return "unavailable";
    default:
      return "internal";
  }
}
