/**
 * Resumable uploads, which the SDK's `writeFile` uses above 8 MiB:
 * `POST fs/uploads` opens a session for `{ path, size, sha256?, mode? }`,
 * `PUT fs/uploads/{uploadId}?offset=` appends one chunk (only at the offset
 * the server has reached, else 409, so a retried chunk is never stored twice),
 * `GET fs/uploads/{uploadId}` reports `receivedBytes`, `POST …/commit` writes
 * the file once every byte arrived and the digest matches, and `DELETE`
 * drops the session. Chunks are spooled in memory.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { EmulatorServer } from "../harness/http-server.js";
import { randomToken } from "../harness/sandbox-registry.js";
import { ApiError, badRequest, emptyReply, jsonReply } from "./api.js";
import type { FreestyleContext, FreestyleVm } from "./context.js";
import { VmFiles } from "./files.js";
import { type ApiCall, addApiRoute, vmOf } from "./routes.js";

/** Largest file an upload session accepts (the API's per-file ceiling). */
const MAX_UPLOAD_BYTES = 16 * 1024 ** 3;

interface UploadSession {
  readonly uploadId: string;
  readonly vmId: string;
  readonly path: string;
  readonly relative: string;
  readonly size: number;
  readonly sha256: string | undefined;
  readonly mode: number | undefined;
  readonly chunks: Buffer[];
  receivedBytes: number;
}

/** The open upload sessions of one emulator. */
export class UploadSessions {
  readonly #sessions = new Map<string, UploadSession>();

  /** Drop every session of a VM (it was deleted). */
  dropVm(vmId: string): void {
    for (const [id, session] of this.#sessions) if (session.vmId === vmId) this.#sessions.delete(id);
  }

  /** Drop every session. */
  clear(): void {
    this.#sessions.clear();
  }

  /** Open a session for a file of `size` bytes. */
  open(session: Omit<UploadSession, "uploadId" | "chunks" | "receivedBytes">): UploadSession {
    let uploadId: string;
    do uploadId = `up_${randomToken(20)}`;
    while (this.#sessions.has(uploadId));
    const opened: UploadSession = { ...session, uploadId, chunks: [], receivedBytes: 0 };
    this.#sessions.set(uploadId, opened);
    return opened;
  }

  /** A session of this VM; 404 `UPLOAD_NOT_FOUND` otherwise. */
  get(vm: FreestyleVm, uploadId: string): UploadSession {
    const session = this.#sessions.get(uploadId);
    if (!session || session.vmId !== vm.id) {
      throw new ApiError(404, "UPLOAD_NOT_FOUND", `no upload session ${uploadId} on VM ${vm.id}`);
    }
    return session;
  }

  /** Drop one session (committed or abandoned). */
  delete(uploadId: string): void {
    this.#sessions.delete(uploadId);
  }
}

function statusJson(session: UploadSession): Record<string, unknown> {
  return { uploadId: session.uploadId, path: session.path, size: session.size, receivedBytes: session.receivedBytes };
}

/** Register the upload session routes. */
export function registerUploadRoutes(server: EmulatorServer, context: FreestyleContext): void {
  const files = new VmFiles(context);
  const add = (method: string, suffix: string, handler: (call: ApiCall, vm: FreestyleVm) => Promise<unknown>) =>
    addApiRoute(server, context, method, `/v5/vms/:id/fs/uploads${suffix}`, async (call) => {
      const vm = vmOf(call, context);
      context.startVm(vm);
      const result = await handler(call, vm);
      return result === undefined ? emptyReply() : jsonReply(200, result);
    });

  add("POST", "", async (call, vm) => {
    const body = call.json();
    if (typeof body.path !== "string") throw badRequest("path must be a string");
    const relative = files.fileTarget(body.path);
    const { size, sha256, mode } = body;
    if (typeof size !== "number" || !Number.isInteger(size) || size < 0 || size > MAX_UPLOAD_BYTES) {
      throw badRequest(`size must be an integer from 0 to ${MAX_UPLOAD_BYTES}`);
    }
    if (sha256 !== undefined && sha256 !== null && (typeof sha256 !== "string" || !/^[0-9a-f]{64}$/i.test(sha256))) {
      throw badRequest("sha256 must be 64 hex digits");
    }
    if (mode !== undefined && mode !== null && (typeof mode !== "number" || !Number.isInteger(mode))) {
      throw badRequest("mode must be an integer");
    }
    return statusJson(
      context.uploads.open({
        vmId: vm.id,
        path: body.path,
        relative,
        size,
        sha256: typeof sha256 === "string" ? sha256.toLowerCase() : undefined,
        mode: typeof mode === "number" ? mode : undefined,
      }),
    );
  });
  add("GET", "/:uploadId", async (call, vm) => statusJson(context.uploads.get(vm, call.params.uploadId!)));
  add("PUT", "/:uploadId", async (call, vm) => {
    const session = context.uploads.get(vm, call.params.uploadId!);
    const offset = Number(call.query.get("offset"));
    if (!Number.isInteger(offset) || offset < 0) throw badRequest("offset must be a non-negative integer");
    if (offset !== session.receivedBytes) {
      throw new ApiError(
        409,
        "UPLOAD_OFFSET_MISMATCH",
        `chunk at ${offset}, but the session has received ${session.receivedBytes} bytes`,
      );
    }
    const chunk = call.exchange.body;
    if (offset + chunk.length > session.size) throw badRequest(`chunk runs past the declared size ${session.size}`);
    session.chunks.push(Buffer.from(chunk));
    session.receivedBytes += chunk.length;
    return statusJson(session);
  });
  add("POST", "/:uploadId/commit", async (call, vm) => {
    const session = context.uploads.get(vm, call.params.uploadId!);
    if (session.receivedBytes !== session.size) {
      throw new ApiError(409, "UPLOAD_INCOMPLETE", `received ${session.receivedBytes} of ${session.size} bytes`);
    }
    const content = Buffer.concat(session.chunks);
    const digest = createHash("sha256").update(content).digest("hex");
    if (session.sha256 !== undefined && digest !== session.sha256) {
      context.uploads.delete(session.uploadId);
      throw new ApiError(
        400,
        "SHA256_MISMATCH",
        `the upload's sha256 is ${digest}, the session said ${session.sha256}`,
      );
    }
    await files.write(vm, session.relative, content, session.mode, call.signal);
    context.uploads.delete(session.uploadId);
    return undefined;
  });
  add("DELETE", "/:uploadId", async (call, vm) => {
    context.uploads.delete(context.uploads.get(vm, call.params.uploadId!).uploadId);
    return undefined;
  });
}
