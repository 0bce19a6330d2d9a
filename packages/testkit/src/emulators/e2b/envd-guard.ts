import { RpcError, replyRpcError, rpcRoute } from "../harness/connect-rpc.js";
import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { E2BContext, E2BSandbox } from "./context.js";
import { toRpcError } from "./errors.js";
import type { EmulatedProcess } from "./process-table.js";

const sandboxes = new WeakMap<Exchange, E2BSandbox>();

/**
 * Route an envd request to its sandbox the way the E2B edge does with
 * `sandboxUrl`: by the `E2b-Sandbox-Id` header (a request naming another
 * `E2b-Sandbox-Port` never gets here: see `PortTraffic`). An unknown or
 * paused sandbox gets 502 (what the edge answers for a sandbox that is not
 * running); a wrong `X-Access-Token` gets 401. Answers and returns `false`
 * when the request cannot go on.
 */
export function envdGuard(context: E2BContext, flavour: "rest" | "rpc", options: { requireToken?: boolean } = {}) {
  return (exchange: Exchange): boolean => {
    const fail = (status: number, code: RpcError["code"], message: string) => {
      if (flavour === "rpc") replyRpcError(exchange, new RpcError(code, message), status);
      else exchange.json(status, { code: status, message });
      return false;
    };
    const id = exchange.header("e2b-sandbox-id");
    if (!id) return fail(400, "invalid_argument", "missing E2b-Sandbox-Id header");
    const sandbox = context.registry.get(id);
    if (sandbox?.state !== "running") return fail(502, "unavailable", `The sandbox ${id} was not found`);
    if ((options.requireToken ?? true) && exchange.header("x-access-token") !== sandbox.data.envdAccessToken) {
      return fail(401, "unauthenticated", "invalid or missing X-Access-Token");
    }
    sandboxes.set(exchange, sandbox);
    return true;
  };
}

/** The sandbox {@link envdGuard} resolved for this request. */
export function sandboxOf(exchange: Exchange): E2BSandbox {
  const sandbox = sandboxes.get(exchange);
  if (!sandbox) throw new Error("emulator bug: envd route without envdGuard");
  return sandbox;
}

/** The running process named by a `ProcessSelector` (`{ pid }` or `{ tag }`), else `not_found`. */
export function selectProcess(sandbox: E2BSandbox, selector: unknown): EmulatedProcess {
  const value = (selector ?? {}) as Record<string, unknown>;
  const pid = value.pid === undefined ? undefined : Number(value.pid);
  const tag = typeof value.tag === "string" ? value.tag : undefined;
  if (pid === undefined && tag === undefined)
    throw new RpcError("invalid_argument", "process selector needs a pid or a tag");
  const process = sandbox.data.processes.find({ pid, tag });
  if (!process) throw new RpcError("not_found", `process ${pid ?? tag} not found`);
  return process;
}

/** A unary envd RPC handler: the decoded request and the sandbox it is for. */
export type EnvdUnaryHandler = (request: Record<string, unknown>, sandbox: E2BSandbox) => Promise<unknown>;

/**
 * Returns a function that registers unary RPCs of one envd `service` behind
 * {@link envdGuard}, turning anything a handler throws into a Connect error.
 */
export function envdUnaryRoutes(server: Pick<EmulatorServer, "route">, context: E2BContext, service: string) {
  const guard = envdGuard(context, "rpc");
  return (method: string, handler: EnvdUnaryHandler): void => {
    server.route(
      rpcRoute(
        service,
        method,
        {
          kind: "unary",
          handler: async (request, rpc) => {
            try {
              return await handler(request, sandboxOf(rpc.exchange));
            } catch (error) {
              throw toRpcError(error);
            }
          },
        },
        { guard },
      ),
    );
  };
}
