/**
 * V2 sandbox lifecycle on the control plane: create, task id, command-router
 * access, wait / poll, terminate, and lookup by name.
 *
 * @module
 */

import { type ModalContext, type TunnelPort, unary } from "./context.js";
import { stringMap } from "./control-plane.js";
import type { GrpcCallContext, WireJson } from "./grpc-server.js";
import { GrpcError } from "./grpc-status.js";
import { NOT_YET_EMULATED, refuseNotYetEmulated } from "./interactive.js";
import { readNetworkAccess } from "./network-access.js";
import { PathRefusedError } from "./paths.js";
import { checkEnvKeys, checkIdleTimeout, checkSandboxName } from "./request-rules.js";
import type { EmulatedSandbox } from "./sandbox.js";

/** Longest sandbox timeout Modal accepts (24 hours). */
const MAX_TIMEOUT_SECS = 24 * 60 * 60;
/** Longest a `SandboxWaitV2` long poll is held. */
const MAX_WAIT_SECS = 55;

const CONTROL_PLANE = "rpc modal.client.ModalClient";

/** Implement the V2 sandbox lifecycle calls on the emulator. */
export function registerSandboxLifecycle(context: ModalContext): void {
  const { state } = context;
  const implement = (
    method: string,
    handle: (request: WireJson, call: GrpcCallContext) => Promise<WireJson> | WireJson,
  ) => context.implement("controlPlane", method, unary(handle));

  implement("SandboxCreateV2", async (request) => {
    const app = state.appById(request.appId);
    const definition = (request.definition ?? {}) as Record<string, unknown>;
    refuseUnemulated(context, definition);
    const imageId = String(definition.imageId ?? "");
    const image = state.image(imageId);
    if (!image) throw new GrpcError("NOT_FOUND", `Image ${imageId} not found`);
    const timeoutSecs = Number(definition.timeoutSecs ?? 300);
    if (!(timeoutSecs > 0 && timeoutSecs <= MAX_TIMEOUT_SECS)) {
      throw new GrpcError("INVALID_ARGUMENT", `timeout must be between 1 and ${MAX_TIMEOUT_SECS} seconds`);
    }
    const idleTimeoutSecs = definition.idleTimeoutSecs === undefined ? undefined : Number(definition.idleTimeoutSecs);
    checkIdleTimeout(idleTimeoutSecs);
    const name = typeof definition.name === "string" && definition.name !== "" ? definition.name : undefined;
    if (name !== undefined) checkSandboxName(name);
    if (name !== undefined && runningInApp(context, app.id).some((sandbox) => sandbox.settings.name === name)) {
      throw new GrpcError("ALREADY_EXISTS", `Sandbox with name '${name}' already exists in the app`);
    }
    let workdir = "";
    if (typeof definition.workdir === "string") {
      try {
        workdir = context.paths.toRelative(definition.workdir);
      } catch (error) {
        if (error instanceof PathRefusedError) throw new GrpcError("INVALID_ARGUMENT", `workdir: ${error.message}`);
        throw error;
      }
    }
    const network = readNetworkAccess(definition.networkAccess);
    const resources = (definition.resources ?? {}) as Record<string, unknown>;
    const env = {
      ...secretEnv(context, definition.secretIds, request.secretSources),
      ...stringMap((request.ephemeralSecrets as WireJson | undefined)?.contents),
    };
    checkEnvKeys(env);
    const sandbox = await context.createSandbox({
      appId: app.id,
      environment: app.environment,
      name,
      imageId,
      ...(image.snapshot === undefined ? {} : { from: image.snapshot }),
      env,
      workdir,
      timeoutSecs,
      idleTimeoutSecs,
      tags: tagMap(request.tags),
      network,
      // The hard limits (the SDK's cpuLimit, memoryLimitMiB) are what the backend enforces; a reservation
      // (cpu, memoryMiB) is what Modal sets aside, no ceiling, so it is kept but bounds nothing.
      cpus: resources.milliCpuMax ? Number(resources.milliCpuMax) / 1000 : undefined,
      memoryMiB: resources.memoryMbMax ? Number(resources.memoryMbMax) : undefined,
      reserved: {
        ...(resources.milliCpu ? { cpus: Number(resources.milliCpu) / 1000 } : {}),
        ...(resources.memoryMb ? { memoryMiB: Number(resources.memoryMb) } : {}),
      },
      ports: tunnelPorts(context, definition),
      foreign: false,
    });
    return {
      sandboxId: sandbox.settings.id,
      taskId: sandbox.settings.taskId,
      commandRouterAccess: routerAccess(context, sandbox),
    };
  });

  implement("SandboxGetTaskIdV2", (request) => {
    const sandbox = state.sandbox(request.sandboxId);
    return sandbox.result ? { taskResult: sandbox.result } : { taskId: sandbox.settings.taskId };
  });

  implement("SandboxGetCommandRouterAccess", (request) => {
    const sandbox =
      typeof request.sandboxId === "string"
        ? state.sandbox(request.sandboxId)
        : state.sandboxesByTask.get(String(request.taskId));
    if (!sandbox) throw new GrpcError("NOT_FOUND", `Task ${String(request.taskId)} not found`);
    if (!sandbox.running)
      throw new GrpcError("FAILED_PRECONDITION", `Sandbox ${sandbox.settings.id} has already finished`);
    return routerAccess(context, sandbox);
  });

  implement("SandboxWaitV2", async (request, call) => {
    const sandbox = state.sandbox(request.sandboxId);
    const timeoutSecs = Math.min(Number(request.timeout ?? 0), MAX_WAIT_SECS);
    await sandbox.waitFinished(timeoutSecs * 1000, call.signal);
    const result = sandbox.result;
    return {
      ...(result ? { result } : {}),
      metadata: { appId: sandbox.settings.appId, ...(result ? { result } : {}) },
    };
  });

  implement("SandboxTerminateV2", async (request) => {
    const sandbox = state.sandbox(request.sandboxId);
    await context.endSandbox(sandbox, "GENERIC_STATUS_TERMINATED", "the sandbox was terminated");
    return {};
  });

  implement("SandboxGetFromNameV2", (request) => {
    const environment = state.environment(request.environmentName);
    const app = state.app(environment.name, String(request.appName ?? ""), false);
    const named = [...state.sandboxes.values()]
      .filter((sandbox) => sandbox.settings.appId === app.id && sandbox.settings.name === request.sandboxName)
      .sort((a, b) => b.settings.createdAt - a.settings.createdAt);
    const found =
      named.find((sandbox) => sandbox.running) ?? (request.includeTerminated === true ? named[0] : undefined);
    if (!found) throw new GrpcError("NOT_FOUND", `Sandbox with name '${String(request.sandboxName)}' not found`);
    return { sandboxId: found.settings.id };
  });

  // The SDK falls back to the V1 lookup when the V2 one finds nothing; the emulator has no V1 sandboxes.
  implement("SandboxGetFromName", (request) => {
    state.environment(request.environmentName);
    throw new GrpcError("NOT_FOUND", `Sandbox with name '${String(request.sandboxName)}' not found`);
  });
}

/** The command router's address and a fresh JWT for the sandbox's task. */
function routerAccess(context: ModalContext, sandbox: EmulatedSandbox): WireJson {
  return { url: context.commandRouterUrl, jwt: context.auth.mintRouterToken(sandbox.settings.taskId) };
}

function runningInApp(context: ModalContext, appId: string): EmulatedSandbox[] {
  return context.registry
    .all()
    .map((entry) => entry.data)
    .filter((sandbox) => sandbox.settings.appId === appId);
}

/** Proto3 JSON `SandboxTag` list as a record. */
export function tagMap(value: unknown): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const tag of Array.isArray(value) ? value : []) {
    const { tagName, tagValue } = (tag ?? {}) as Record<string, unknown>;
    if (typeof tagName !== "string" || tagName === "") throw new GrpcError("INVALID_ARGUMENT", "a tag needs a name");
    tags[tagName] = typeof tagValue === "string" ? tagValue : "";
  }
  return tags;
}

/** The environment a list of secret ids and `SecretSource`s adds up to (later sources win). */
export function secretEnv(context: ModalContext, secretIds: unknown, sources: unknown): Record<string, string> {
  const env: Record<string, string> = {};
  const addSecret = (id: unknown) => {
    const secret = typeof id === "string" ? context.state.secrets.get(id) : undefined;
    if (!secret) throw new GrpcError("NOT_FOUND", `Secret ${String(id)} not found`);
    Object.assign(env, secret.env);
  };
  for (const id of Array.isArray(secretIds) ? secretIds : []) addSecret(id);
  for (const source of Array.isArray(sources) ? sources : []) {
    const { secretId, env: inline } = (source ?? {}) as Record<string, unknown>;
    if (typeof secretId === "string" && secretId !== "") addSecret(secretId);
    else Object.assign(env, stringMap((inline as WireJson | undefined)?.contents));
  }
  return env;
}

/**
 * The tunnel ports a create asks for (`openPorts`): each once, 1-65535. A
 * backend without `portEndpoint` cannot serve them (refused as not emulated).
 */
function tunnelPorts(context: ModalContext, definition: Record<string, unknown>): TunnelPort[] {
  const specs = ((definition.openPorts ?? {}) as Record<string, unknown>).ports;
  if (!Array.isArray(specs) || specs.length === 0) return [];
  if (!context.backend.portEndpoint) {
    refuseNotYetEmulated(context, `${CONTROL_PLANE}/SandboxCreateV2`, NOT_YET_EMULATED.openPorts);
  }
  const ports = specs.map((spec) => {
    const { port, unencrypted } = (spec ?? {}) as Record<string, unknown>;
    if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65535) {
      throw new GrpcError("INVALID_ARGUMENT", `invalid port ${String(port)}`);
    }
    return { port: port as number, unencrypted: unencrypted === true };
  });
  if (new Set(ports.map((tunnel) => tunnel.port)).size !== ports.length) {
    throw new GrpcError("INVALID_ARGUMENT", "a port is opened more than once");
  }
  return ports;
}

/** Refuse definition features the emulator does not have, naming each in `unknownRoutes`. */
function refuseUnemulated(context: ModalContext, definition: Record<string, unknown>): void {
  const route = `${CONTROL_PLANE}/SandboxCreateV2`;
  const refused: string[] = [];
  const nonEmpty = (value: unknown) =>
    Array.isArray(value) ? value.length > 0 : value !== undefined && value !== "" && value !== false;
  if (nonEmpty(definition.entrypointArgs)) refused.push("entrypointArgs (a sandbox command)");
  if (nonEmpty(definition.volumeMounts) || nonEmpty(definition.cloudBucketMounts)) refused.push("volumes");
  if (definition.ptyInfo !== undefined) refused.push("pty");
  if (definition.readinessProbe !== undefined) refused.push("readinessProbe");
  if (nonEmpty(definition.proxyId)) refused.push("proxy");
  if (nonEmpty(definition.customDomain)) refused.push("customDomain");
  if (definition.experimentalOutboundPolicy !== undefined) refused.push("experimentalOutboundPolicy");
  if (nonEmpty(definition.enableSnapshot)) refused.push("snapshots");
  if (nonEmpty(definition.inboundCidrAllowlist)) refused.push("inboundCidrAllowlist");
  const gpu = ((definition.resources ?? {}) as Record<string, Record<string, unknown> | undefined>).gpuConfig;
  if (nonEmpty(gpu?.gpuType) || Number(gpu?.count ?? 0) > 0) refused.push("GPUs");
  if (refused.length === 0) return;
  for (const feature of refused) context.logNotEmulated(route, feature);
  throw new GrpcError("UNIMPLEMENTED", `not emulated: ${refused.join(", ")}`);
}
