/**
 * What every toolbox route shares, as the toolbox proxy does it before a
 * request reaches a sandbox's daemon: the credentials, the sandbox id in the
 * path (`/toolbox/<id>/...`), and the sandbox being started. Failures of the
 * handler are answered in the daemon's error shape.
 *
 * @module
 */

import type { SandboxHandle } from "@sandport/core";
import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import { checkCredentials } from "./auth.js";
import type { DaytonaContext, DaytonaSandbox } from "./context.js";
import { toDaemonError, toolboxError, toolboxErrorReply } from "./errors.js";

/** A toolbox handler: the request, its started sandbox and that sandbox's backend handle. */
export type ToolboxHandler = (
  exchange: Exchange,
  sandbox: DaytonaSandbox,
  handle: SandboxHandle,
) => Promise<void> | void;

/** Registers toolbox routes; `suffix` follows `/toolbox/:id` (`"/process/execute"`). */
export type ToolboxRouteAdder = (method: string, suffix: string, handler: ToolboxHandler) => void;

/** A function that registers guarded toolbox routes on `server`. */
export function toolboxRoutes(server: EmulatorServer, context: DaytonaContext): ToolboxRouteAdder {
  return (method, suffix, handler) => {
    server.route({
      method,
      pattern: `/toolbox/:id${suffix}`,
      errorReply: toolboxErrorReply,
      handler: async (exchange) => {
        const failure = checkCredentials(exchange, context.credentials);
        if (failure) {
          toolboxError(exchange, failure.status, failure.message, { source: "DAYTONA_PROXY" });
          return;
        }
        const id = exchange.params.id ?? "";
        const sandbox = context.registry.get(id);
        if (!sandbox) {
          toolboxError(exchange, 404, `sandbox ${id} not found`, { source: "DAYTONA_PROXY" });
          return;
        }
        const handle = sandbox.data.handle;
        // A sandbox being forked keeps running (the fork is a copy of a live machine).
        if ((sandbox.state !== "started" && sandbox.state !== "forking") || !handle) {
          // What the real proxy answers here is not known; 409 says "not in a state to serve this".
          toolboxError(exchange, 409, `sandbox ${id} is not started (state: ${sandbox.state})`, {
            source: "DAYTONA_PROXY",
          });
          return;
        }
        sandbox.data.lastActivityAt = Date.now();
        try {
          await handler(exchange, sandbox, handle);
        } catch (error) {
          if (exchange.answered) throw error;
          const daemonError = toDaemonError(error);
          toolboxError(exchange, daemonError.status, daemonError.message, { code: daemonError.code });
        }
      },
    });
  };
}
