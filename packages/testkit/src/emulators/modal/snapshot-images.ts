/**
 * Filesystem snapshots as Modal makes them: the command router's
 * `TaskSnapshotFilesystem` (the SDK's `sandbox.snapshotFilesystem()`) turns a
 * running sandbox's files into an Image, which `SandboxCreateV2` boots from
 * and `ImageDelete` removes. The files are kept for real, as the backend
 * runtime's own snapshot of the sandbox's workspace (`snapshot`), and a
 * sandbox created from the image is launched from it (`LaunchSpec.from`). The
 * sandbox keeps running.
 *
 * @module
 */

import type { SandboxRuntime, SnapshotRef } from "@sandport/core";
import { type ModalContext, unary } from "./context.js";
import type { GrpcCallContext, WireJson } from "./grpc-server.js";
import { GrpcError, toGrpcError } from "./grpc-status.js";
import { objectId } from "./ids.js";

/** Deadline of a backend snapshot or its deletion. */
const SNAPSHOT_TIMEOUT_MS = 120_000;
/** The proto's sentinel for an image that never expires. */
const NO_EXPIRY = -1;

/** Implement `TaskSnapshotFilesystem` and `ImageDelete`. */
export function registerSnapshotImages(context: ModalContext): void {
  const { state } = context;
  /** Images already made, by the request's `snapshotId`: the proto makes a repeated request idempotent. */
  const made = new Map<string, Promise<string>>();

  context.implement(
    "commandRouter",
    "TaskSnapshotFilesystem",
    unary(async (request: WireJson, call: GrpcCallContext) => {
      const granted = context.auth.routerTask(call);
      if (request.taskId !== granted) {
        throw new GrpcError(
          "PERMISSION_DENIED",
          `the router token is for task ${granted}, not ${String(request.taskId)}`,
        );
      }
      if (typeof request.containerId === "string" && request.containerId !== "") {
        throw new GrpcError("UNIMPLEMENTED", "sidecar containers are not emulated");
      }
      if (request.customerSuppliedEncryptionKey !== undefined && request.customerSuppliedEncryptionKey !== "") {
        throw new GrpcError("UNIMPLEMENTED", "customer-supplied encryption keys are not emulated");
      }
      const ttlSeconds = Number(request.ttlSeconds ?? 0);
      if (!(ttlSeconds === NO_EXPIRY || (Number.isInteger(ttlSeconds) && ttlSeconds > 0))) {
        throw new GrpcError("INVALID_ARGUMENT", `ttlSeconds must be positive or -1 (no expiry), got ${ttlSeconds}`);
      }
      const snapshotId = String(request.snapshotId ?? "");
      if (snapshotId === "") throw new GrpcError("INVALID_ARGUMENT", "snapshotId is required");
      const sandbox = state.sandboxesByTask.get(granted);
      if (!sandbox?.running) throw new GrpcError("NOT_FOUND", `task ${granted} not found (its sandbox has finished)`);
      let image = made.get(snapshotId);
      if (image === undefined) {
        image = takeSnapshot(snapshotting(context.backend), sandbox.handle, ttlSeconds).then((taken) => {
          const id = objectId("im");
          state.images.set(id, { id, definition: `snapshot:${id}`, ...taken });
          return id;
        });
        made.set(snapshotId, image);
        // A failed snapshot may be asked for again under the same id.
        image.catch(() => made.delete(snapshotId));
      }
      return { imageId: await image };
    }),
  );

  context.implement(
    "controlPlane",
    "ImageDelete",
    unary(async (request: WireJson) => {
      const image = state.image(request.imageId);
      if (!image) throw new GrpcError("NOT_FOUND", `Could not find image with ID ${String(request.imageId)}`);
      state.images.delete(image.id);
      // Gone at once; sandboxes booted from it keep their own files.
      if (image.snapshot !== undefined) await deleteBackendSnapshot(context.backend, image.snapshot);
      return {};
    }),
  );
}

/** Delete the backend copies of every snapshot image (the emulator stops; a caller's backend outlives it). */
export async function dropSnapshotImages(context: ModalContext): Promise<void> {
  const kept = [...context.state.images.values()].filter((image) => image.snapshot !== undefined);
  for (const image of kept) context.state.images.delete(image.id);
  await Promise.allSettled(kept.map((image) => deleteBackendSnapshot(context.backend, image.snapshot!)));
}

async function takeSnapshot(
  backend: Snapshotting,
  handle: Parameters<Snapshotting["snapshot"]>[0],
  ttlSeconds: number,
): Promise<{ snapshot: SnapshotRef; expiresAt?: number }> {
  try {
    const snapshot = await backend.snapshot(handle, { timeoutMs: SNAPSHOT_TIMEOUT_MS });
    return ttlSeconds === NO_EXPIRY ? { snapshot } : { snapshot, expiresAt: Date.now() + ttlSeconds * 1000 };
  } catch (error) {
    throw toGrpcError(error);
  }
}

async function deleteBackendSnapshot(backend: SandboxRuntime, snapshot: SnapshotRef): Promise<void> {
  try {
    await snapshotting(backend).deleteSnapshot(snapshot, { timeoutMs: SNAPSHOT_TIMEOUT_MS });
  } catch (error) {
    throw toGrpcError(error);
  }
}

type Snapshotting = Required<Pick<SandboxRuntime, "snapshot" | "deleteSnapshot">>;

/** The backend's snapshot members, or `UNIMPLEMENTED` when the backend runtime has none. */
function snapshotting(backend: SandboxRuntime): Snapshotting {
  const { snapshot, deleteSnapshot } = backend;
  if (snapshot === undefined || deleteSnapshot === undefined) {
    throw new GrpcError("UNIMPLEMENTED", "filesystem snapshots: the emulator's backend runtime takes none");
  }
  return { snapshot: snapshot.bind(backend), deleteSnapshot: deleteSnapshot.bind(backend) };
}
