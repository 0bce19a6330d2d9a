/**
 * Legacy `/v1` files: `GET /v1/vms/{id}/files/{path}` answers a file as
 * `{ content, encoding: "base64" }` and a directory as
 * `{ files: [{ name, kind }] }`; `PUT` takes `{ content, encoding }`
 * (`base64` or `utf8`). The path is one URL-encoded segment, absolute or
 * relative to the VM's workdir. The legacy SDK's `mkdir`, `remove`, `exists`
 * and `stat` are shell commands through `exec-await`, so their paths are not
 * mapped: over an `isolation: "none"` backend an absolute path in them names
 * a host path. Give them paths relative to the workdir.
 *
 * @module
 */

import type { EmulatorServer } from "../harness/http-server.js";
import { badRequest, jsonReply } from "./api.js";
import type { FreestyleContext, FreestyleVm } from "./context.js";
import { VmFiles } from "./files.js";
import { type ApiCall, addApiRoute, vmOf } from "./routes.js";

/** Register the `/v1` file routes. */
export function registerLegacyFileRoutes(server: EmulatorServer, context: FreestyleContext): void {
  const files = new VmFiles(context);
  const target = (call: ApiCall, vm: FreestyleVm) =>
    files.target(call.params.path, vm.data.legacyWorkdir ?? context.workspaceDirectory);

  addApiRoute(server, context, "GET", "/v1/vms/:id/files/:path", async (call) => {
    const vm = vmOf(call, context);
    context.startVm(vm);
    const relative = target(call, vm);
    const info = await files.stat(vm, relative, call.signal);
    if (info.kind === "directory") {
      const entries = await files.listDir(vm, relative, call.signal);
      return jsonReply(200, {
        files: entries.map((entry) => ({ name: entry.name, kind: entry.kind === "directory" ? "directory" : "file" })),
      });
    }
    const content = await files.readBytes(vm, relative, call.signal);
    return jsonReply(200, { content: Buffer.from(content).toString("base64"), encoding: "base64" });
  });
  addApiRoute(server, context, "PUT", "/v1/vms/:id/files/:path", async (call) => {
    const vm = vmOf(call, context);
    context.startVm(vm);
    const relative = target(call, vm);
    if (relative === "") throw badRequest("the path names the workspace directory, not a file");
    const { content, encoding } = call.json();
    if (typeof content !== "string") throw badRequest("content must be a string");
    if (encoding !== undefined && encoding !== null && encoding !== "base64" && encoding !== "utf8") {
      throw badRequest('encoding must be "base64" or "utf8"');
    }
    const bytes = encoding === "base64" ? Buffer.from(content, "base64") : Buffer.from(content, "utf8");
    await files.write(vm, relative, bytes, undefined, call.signal);
    return jsonReply(200, {});
  });
}
