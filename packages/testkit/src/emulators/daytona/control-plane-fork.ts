/**
 * Daytona's fork route: `POST /api/sandbox/{idOrName}/fork` with a
 * `ForkSandbox` body (`{ name? }`), answered at once with the new sandbox
 * (`Sandbox`, state `creating`), which the SDK then polls until `started`.
 * The source is `forking` while its files are copied (the backend's own
 * `fork`), then `started` again. Refusals in the API's order: unknown
 * sandbox, a class that cannot be forked, a source not started, a GPU
 * sandbox, a taken name. See README.md, "Contract (fork)".
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { DaytonaContext } from "./context.js";
import { ApiRefusal } from "./control-plane.js";
import { messageOf } from "./errors.js";
import { BadRequestError, optionalString, readObject } from "./request-body.js";
import { sandboxJson } from "./sandbox-json.js";

type Add = (method: string, pattern: string, handler: (exchange: Exchange) => Promise<void> | void) => void;

/** The classes the API forks (`SandboxClass.LINUX_VM`, `SandboxClass.WINDOWS`). */
const FORKABLE_CLASSES: ReadonlySet<string> = new Set(["linux-vm", "windows"]);

/** Registers the fork route through the control plane's `add` (credentials, error envelope). */
export function registerForkRoute(add: Add, context: DaytonaContext): void {
  add("POST", "/api/sandbox/:idOrName/fork", (exchange) => fork(exchange, context));
}

function fork(exchange: Exchange, context: DaytonaContext): void {
  const body = readObject(exchange);
  const name = optionalString(body, "name");
  const idOrName = exchange.params.idOrName ?? "";
  const source = context.find(idOrName);
  if (!source) throw new ApiRefusal(404, `Sandbox with ID or name ${idOrName} not found`);
  if (!FORKABLE_CLASSES.has(source.data.sandboxClass)) {
    throw new ApiRefusal(422, "Forking is not supported for this sandbox");
  }
  if (source.state !== "started") throw new BadRequestError("Sandbox must be in started state to fork");
  if (source.data.transition) throw new BadRequestError("Sandbox state change in progress");
  if (source.data.resources.gpu > 0) throw new ApiRefusal(422, "Forking is not supported for GPU sandboxes");
  let forked: ReturnType<DaytonaContext["forkSandbox"]>;
  try {
    forked = context.forkSandbox(source, name);
  } catch (error) {
    // The API's answer to a name taken (a unique-key violation) is its own wording.
    if (/already exists/.test(messageOf(error))) throw new ApiRefusal(409, "Sandbox with this name already exists");
    throw error;
  }
  exchange.json(200, sandboxJson(forked, context));
}
