/**
 * What the emulator refuses when its backend lacks a port method: the calls
 * are answered `UNIMPLEMENTED` and logged in `unknownRoutes`, never faked.
 *
 * - Stdin bytes to a running command (`TaskExecStdinWrite` /
 *   `TaskExecStdinWriteStream`) need the backend's `spawn` (see
 *   `command-program.ts`); without it a command's stdin is closed from the start.
 * - Tunnels (`openPorts` at create, `SandboxGetTunnelsV2`) need the backend's
 *   `portEndpoint` (see `tunnels.ts`).
 *
 * @module
 */

import type { ModalContext } from "./context.js";
import { GrpcError } from "./grpc-status.js";

/** The features this module stands in for, by the name they are logged under. */
export const NOT_YET_EMULATED = {
  stdin: "stdin bytes to a running command",
  openPorts: "openPorts (tunnels)",
} as const;

/** Log and refuse a feature that the backend runtime cannot serve. */
export function refuseNotYetEmulated(
  context: ModalContext,
  route: string,
  feature: (typeof NOT_YET_EMULATED)[keyof typeof NOT_YET_EMULATED],
): never {
  context.logNotEmulated(route, feature);
  throw new GrpcError("UNIMPLEMENTED", `${feature} is not emulated`);
}
