/**
 * Where interactive stdin and port endpoints will go.
 *
 * Both need backend port methods that do not exist yet, so the emulator does
 * not fake them: the calls are answered `UNIMPLEMENTED` and logged in
 * `unknownRoutes`.
 *
 * - Interactive stdin (`TaskExecStdinWrite` / `TaskExecStdinWriteStream` with
 *   bytes for a running command). The port takes stdin only as bytes known
 *   when a command starts, and a Modal exec starts at `TaskExecStart`, before
 *   any stdin is sent. Once the port has an interactive-process method,
 *   `commandProgram` starts the command through it and `ExecStdin` (which
 *   refuses bytes for commands today) forwards them.
 * - Tunnels and connect tokens (`openPorts` at create, `SandboxGetTunnelsV2`,
 *   `SandboxCreateConnectTokenV2`). Once the port has a port-endpoint method,
 *   create maps `openPorts` onto it and those two methods are implemented here.
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

/** Log and refuse a feature that waits for a port method. */
export function refuseNotYetEmulated(
  context: ModalContext,
  route: string,
  feature: (typeof NOT_YET_EMULATED)[keyof typeof NOT_YET_EMULATED],
): never {
  context.logNotEmulated(route, feature);
  throw new GrpcError("UNIMPLEMENTED", `${feature} is not emulated`);
}
