/**
 * The instance plane: each instance's own URL (`<origin>/edge/<id>` here,
 * `https://<id>.agent37.app` on the service) with the workspace key in a
 * header: health and the file API (content, listing, mkdir, delete), on the backend sandbox's workspace, which
 * stands for the instance user's home directory.
 *
 * @module
 */

import { posix } from "node:path";
import { SandportError } from "@sandport/core";
import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { Agent37Instance, Agent37State } from "./state.js";
import { Agent37WireError, agent37ErrorReply, answering, checkInstanceKey } from "./wire.js";

/** The path prefix of instance URLs on the emulator's origin. */
export const EDGE_PREFIX = "/edge";

/** Adds the instance-plane routes. */
export function registerInstancePlaneRoutes(server: EmulatorServer, state: Agent37State): void {
  const route = (
    method: string,
    path: string,
    handler: (exchange: Exchange, instance: Agent37Instance) => Promise<void> | void,
  ) =>
    server.route({
      method,
      pattern: `${EDGE_PREFIX}/:id${path}`,
      errorReply: agent37ErrorReply,
      handler: (exchange) =>
        answering(exchange, () => {
          const instance = state.registry.get(exchange.params.id ?? "");
          // The edge answers an unknown host before it looks at the key.
          if (!instance) throw new Agent37WireError(404, "not_found", "no such instance", true);
          checkInstanceKey(exchange, state.apiKey, state.instanceAuth);
          if (instance.state !== "running") {
            throw new Agent37WireError(502, "container_unavailable", `the instance is ${instance.state}`, true);
          }
          return handler(exchange, instance);
        }),
    });
  route("GET", "/v1/health", (exchange) => exchange.json(200, { ok: true }));
  route("PUT", "/v1/files/content", async (exchange, instance) => {
    const path = requestPath(state, exchange);
    await backendCall(() =>
      state.backend.writeFiles(instance.data.handle, [{ path: path.relative, content: new Uint8Array(exchange.body) }]),
    );
    exchange.json(200, {
      name: posix.basename(path.absolute),
      path: path.absolute,
      type: "file",
      size: exchange.body.length,
      modified: Math.floor(Date.now() / 1000),
      hidden: posix.basename(path.absolute).startsWith("."),
    });
  });
  route("GET", "/v1/files", async (exchange, instance) => {
    const path = requestPath(state, exchange, true);
    const listDir = state.backend.listDir;
    if (!listDir) throw new Agent37WireError(501, "not_emulated", "the emulator's backend cannot list directories");
    const entries = await backendCall(() => listDir.call(state.backend, instance.data.handle, path.relative));
    exchange.json(200, {
      path: path.absolute,
      entries: entries.map((entry) => ({
        name: entry.name,
        path: posix.join(path.absolute, entry.name),
        type: entry.kind === "other" ? "file" : entry.kind,
        size: entry.kind === "file" ? entry.size : null,
      })),
    });
  });
  route("POST", "/v1/files/dir", async (exchange, instance) => {
    const path = requestPath(state, exchange);
    const mkdir = state.backend.mkdir;
    if (!mkdir) throw new Agent37WireError(501, "not_emulated", "the emulator's backend cannot make directories");
    await backendCall(() => mkdir.call(state.backend, instance.data.handle, path.relative));
    exchange.json(200, { path: path.absolute, type: "directory" });
  });
  route("DELETE", "/v1/files", async (exchange, instance) => {
    const path = requestPath(state, exchange);
    const remove = state.backend.remove;
    if (!remove) throw new Agent37WireError(501, "not_emulated", "the emulator's backend cannot remove files");
    await backendCall(() => remove.call(state.backend, instance.data.handle, path.relative));
    exchange.json(200, { path: path.absolute, deleted: true });
  });
  route("GET", "/v1/files/content", async (exchange, instance) => {
    const path = requestPath(state, exchange);
    const bytes = await backendCall(() => state.backend.readFile(instance.data.handle, path.relative));
    exchange.reply(200, { "content-type": "application/octet-stream" }, bytes);
  });
}

/** The `path` query: absolute, under the home directory; its backend-relative form. */
function requestPath(
  state: Agent37State,
  exchange: Exchange,
  allowHome = false,
): { absolute: string; relative: string } {
  const given = exchange.url.searchParams.get("path");
  if (!given?.startsWith("/")) throw new Agent37WireError(400, "invalid_request", "path must be absolute");
  const absolute = posix.normalize(given);
  const relative = posix.relative(state.homeDirectory, absolute);
  if ((relative === "" && !allowHome) || relative.startsWith("..")) {
    throw new Agent37WireError(403, "forbidden_path", `path ${absolute} is outside ${state.homeDirectory}`);
  }
  return { absolute, relative };
}

/** A backend call, its port errors as the file API's. */
async function backendCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!SandportError.isInstance(error)) throw error;
    if (error.code === "NOT_FOUND") throw new Agent37WireError(404, "file_not_found", error.message);
    if (error.code === "INVALID_REQUEST") throw new Agent37WireError(400, "invalid_request", error.message);
    throw new Agent37WireError(500, "internal_error", error.message);
  }
}
