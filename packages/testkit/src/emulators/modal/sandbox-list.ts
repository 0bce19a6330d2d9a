/**
 * Listing V2 sandboxes (`SandboxListV2`, paged by creation time) and their
 * tags (`SandboxTagsSetV2` / `SandboxTagsGetV2`).
 *
 * @module
 */

import { type ModalContext, unary } from "./context.js";
import type { WireJson } from "./grpc-server.js";
import { GrpcError } from "./grpc-status.js";
import type { EmulatedSandbox, SandboxSettings } from "./sandbox.js";
import { tagMap } from "./sandbox-lifecycle.js";

/** Implement sandbox listing and tags on the emulator. */
export function registerSandboxList(context: ModalContext): void {
  const { state } = context;
  const implement = (method: string, handle: (request: WireJson) => WireJson) =>
    context.implement(
      "controlPlane",
      method,
      unary(async (request) => handle(request)),
    );

  // Newest first, at most `pageSize`, strictly older than `beforeTimestamp`: the
  // SDK pages by passing the last item's `createdAt` until a page comes back empty.
  implement("SandboxListV2", (request) => {
    const appId = typeof request.appId === "string" && request.appId !== "" ? request.appId : undefined;
    const environment = appId === undefined ? state.environment(request.environmentName).name : undefined;
    const before = Number(request.beforeTimestamp ?? 0);
    const wanted = tagMap(request.tags);
    const matches = [...state.sandboxes.values()]
      .filter((sandbox) => (appId ? sandbox.settings.appId === appId : sandbox.settings.environment === environment))
      .filter((sandbox) => request.includeFinished === true || sandbox.running)
      .filter((sandbox) => before <= 0 || sandbox.settings.createdAt < before)
      .filter((sandbox) => Object.entries(wanted).every(([name, value]) => sandbox.tags[name] === value))
      .sort((a, b) => b.settings.createdAt - a.settings.createdAt)
      .slice(0, context.pageSize);
    return { sandboxes: matches.map(sandboxInfo) };
  });

  implement("SandboxTagsSetV2", (request) => {
    const sandbox = state.sandbox(request.sandboxId);
    if (!sandbox.running)
      throw new GrpcError("FAILED_PRECONDITION", `Sandbox ${sandbox.settings.id} has already finished`);
    sandbox.tags = tagMap(request.tags);
    const registered = context.registry.get(sandbox.settings.id);
    if (registered) registered.metadata = { ...sandbox.tags };
    return {};
  });

  implement("SandboxTagsGetV2", (request) => {
    const sandbox = state.sandbox(request.sandboxId);
    return { tags: tagList(sandbox.tags) };
  });
}

function tagList(tags: Readonly<Record<string, string>>): WireJson[] {
  return Object.entries(tags).map(([tagName, tagValue]) => ({ tagName, tagValue }));
}

/** `SandboxInfo` in proto3 JSON. */
function sandboxInfo(sandbox: EmulatedSandbox): WireJson {
  const { settings } = sandbox;
  return {
    id: settings.id,
    createdAt: settings.createdAt,
    appId: settings.appId,
    tags: tagList(sandbox.tags),
    ...(settings.name === undefined ? {} : { name: settings.name }),
    imageId: settings.imageId,
    timeoutSecs: settings.timeoutSecs,
    ...(settings.idleTimeoutSecs === undefined ? {} : { idleTimeoutSecs: settings.idleTimeoutSecs }),
    resourceInfo: resourceInfo(settings.resources),
    taskInfo: {
      id: settings.taskId,
      startedAt: settings.createdAt,
      sandboxId: settings.id,
      ...(sandbox.result ? { result: sandbox.result } : {}),
    },
  };
}

/** Modal's reservation of a container that asked for none: 0.125 cores and 128 MiB (its resources guide). */
const DEFAULT_RESERVATION = { milliCpu: 125, memoryMb: 128 } as const;

/**
 * `ResourceInfo` in proto3 JSON: each reservation with `isDefault` when the
 * create set none (then Modal's default), and the hard limits where the
 * create set them (a zero, proto3's absence, where it set none).
 */
function resourceInfo(resources: SandboxSettings["resources"]): WireJson {
  const { reserved } = resources;
  return {
    memoryMb:
      reserved.memoryMiB === undefined
        ? { value: DEFAULT_RESERVATION.memoryMb, isDefault: true }
        : { value: reserved.memoryMiB, isDefault: false },
    milliCpu:
      reserved.cpus === undefined
        ? { value: DEFAULT_RESERVATION.milliCpu, isDefault: true }
        : { value: Math.round(reserved.cpus * 1000), isDefault: false },
    ...(resources.memoryMiB === undefined ? {} : { memoryMbMax: resources.memoryMiB }),
    ...(resources.cpus === undefined ? {} : { milliCpuMax: Math.round(resources.cpus * 1000) }),
  };
}
