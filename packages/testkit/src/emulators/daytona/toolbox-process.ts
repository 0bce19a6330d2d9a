/**
 * Toolbox `process/execute` (one command to completion, stdout and stderr in
 * one `result` as the daemon's shared buffer has them) and the info routes
 * `user-home-dir` and `work-dir`.
 *
 * @module
 */

import { SandportError } from "@sandport/core";
import type { EmulatorServer } from "../harness/http-server.js";
import type { DaytonaContext } from "./context.js";
import { DaemonError } from "./errors.js";
import { DAYTONA_HOME, toBackendCwd } from "./paths.js";
import { BadRequestError, optionalInteger, optionalString, readObject, stringMap } from "./request-body.js";
import { runShell, UNBOUNDED_COMMAND_MS } from "./shell.js";
import { toolboxRoutes } from "./toolbox-routes.js";

/** Register `process/execute` and the info routes. */
export function registerToolboxProcess(server: EmulatorServer, context: DaytonaContext): void {
  const add = toolboxRoutes(server, context);

  add("POST", "/process/execute", async (exchange, sandbox, handle) => {
    const body = readObject(exchange);
    const command = optionalString(body, "command");
    if (command === undefined) throw new BadRequestError("command is required");
    if (command.trim() === "") throw new BadRequestError("empty command");
    const cwdPath = optionalString(body, "cwd");
    const cwd = cwdPath === undefined ? undefined : toBackendCwd(cwdPath);
    const envs = stringMap(body, "envs");
    const timeoutSeconds = optionalInteger(body, "timeout", 0);
    const controller = new AbortController();
    sandbox.data.commands.add(controller);
    try {
      const outcome = await runShell(context.backend, handle, {
        command,
        cwd,
        env: { ...sandbox.data.env, ...envs },
        timeoutMs: timeoutSeconds ? timeoutSeconds * 1000 : UNBOUNDED_COMMAND_MS,
        signal: controller.signal,
        mergeOutput: true,
      });
      if (outcome.timedOut) throw new DaemonError(408, "PROCESS_EXECUTION_TIMEOUT", "command execution timeout");
      exchange.json(200, { exitCode: outcome.exitCode ?? -1, result: outcome.stdout });
    } catch (error) {
      // A working directory that does not exist keeps the shell from starting: exit -1, no output.
      if (SandportError.hasCode(error, "NOT_FOUND")) exchange.json(200, { exitCode: -1, result: "" });
      else throw error;
    } finally {
      sandbox.data.commands.delete(controller);
    }
  });

  add("GET", "/user-home-dir", (exchange) => exchange.json(200, { dir: DAYTONA_HOME }));
  add("GET", "/work-dir", (exchange) => exchange.json(200, { dir: DAYTONA_HOME }));
}
