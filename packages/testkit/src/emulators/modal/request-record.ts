import type { EmulatorRequestRecord } from "../harness/types.js";

/**
 * One gRPC call the Modal emulator received. `status` is the HTTP status that
 * names the call's outcome (200 for OK, 404 for NOT_FOUND, 429 for
 * RESOURCE_EXHAUSTED, 503 for UNAVAILABLE; `0` for a dropped or lost answer),
 * since every gRPC response is HTTP 200 on the wire.
 */
export interface ModalRequestRecord extends EmulatorRequestRecord {
  /** The gRPC status code sent (`0` for OK), `undefined` while running or when no status went out. */
  readonly grpcStatus: number | undefined;
}
