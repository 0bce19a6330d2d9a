/**
 * The Daytona API under `/api`: create, get (by id or name), list, start,
 * stop, delete, fork (`control-plane-fork.ts`), labels, the auto-stop/archive/delete intervals, last activity,
 * the toolbox proxy URL and preview links (see `preview-proxy.ts`), with the
 * request and response shapes the SDK's API client uses.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import { delay, type EmulatorServer } from "../harness/http-server.js";
import { checkCredentials } from "./auth.js";
import type { CreateSandboxInput, DaytonaContext, DaytonaSandbox } from "./context.js";
import { registerForkRoute } from "./control-plane-fork.js";
import { listSandboxes } from "./control-plane-list.js";
import { registerSnapshotRoutes } from "./control-plane-snapshots.js";
import { apiError, apiErrorReply, messageOf } from "./errors.js";
import { resolveAutoArchiveInterval } from "./lifecycle.js";
import { readDomainAllowList, readNetworkAllowList } from "./network-lists.js";
import {
  BadRequestError,
  optionalBoolean,
  optionalInteger,
  optionalString,
  parseInteger,
  readObject,
  refuseFields,
  stringMap,
} from "./request-body.js";
import { sandboxJson } from "./sandbox-json.js";

/** How long create (from a snapshot) and start wait for the sandbox to be started before answering, as the API does. */
const ANSWER_WAIT_MS = 30_000;

/** A request the API refuses with a status other than 400. */
export class ApiRefusal extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = "ApiRefusal";
    this.status = status;
  }
}

/** Create fields the emulator cannot honour; a request that sets one is refused instead of half-done. */
const NOT_EMULATED_CREATE_FIELDS = [
  "volumes",
  "secrets",
  "ttlMinutes",
  "kvm",
  "spot",
  "gpuType",
  "outboundProxyUrl",
  "otelEndpointOverride",
  "linkedSandbox",
  "autoPauseInterval",
] as const;

/** Register the API routes. */
export function registerControlPlane(server: EmulatorServer, context: DaytonaContext): void {
  const add = (method: string, pattern: string, handler: (exchange: Exchange) => Promise<void> | void) => {
    server.route({
      method,
      pattern,
      errorReply: apiErrorReply,
      handler: async (exchange) => {
        const failure = checkCredentials(exchange, context.credentials);
        if (failure) {
          apiError(exchange, failure.status, failure.message);
          return;
        }
        try {
          await handler(exchange);
        } catch (error) {
          if (error instanceof BadRequestError) apiError(exchange, 400, error.message);
          else if (error instanceof ApiRefusal) apiError(exchange, error.status, error.message);
          else throw error;
        }
      },
    });
  };
  const withSandbox = (handler: (exchange: Exchange, sandbox: DaytonaSandbox) => Promise<void> | void) => {
    return (exchange: Exchange) => handler(exchange, findOrThrow(context, exchange.params.id ?? ""));
  };

  add("POST", "/api/sandbox", (exchange) => create(exchange, context));
  registerSnapshotRoutes(add, context);
  registerForkRoute(add, context);
  for (const literal of ["paginated", "for-runner", "regions"]) {
    // These would otherwise be taken for a sandbox named after them.
    add("GET", `/api/sandbox/${literal}`, (exchange) => {
      server.log.addUnknown(exchange.method, exchange.rawPath);
      throw new ApiRefusal(404, `${exchange.url.pathname} is not emulated`);
    });
  }
  add("GET", "/api/sandbox", (exchange) => listSandboxes(exchange, context));
  add(
    "GET",
    "/api/sandbox/:id",
    withSandbox((exchange, sandbox) => exchange.json(200, sandboxJson(sandbox, context))),
  );
  add(
    "DELETE",
    "/api/sandbox/:id",
    withSandbox((exchange, sandbox) => {
      refuseWhilePending(sandbox);
      context.deleteSandbox(sandbox);
      exchange.json(200, sandboxJson(sandbox, context));
    }),
  );
  add(
    "POST",
    "/api/sandbox/:id/start",
    withSandbox(async (exchange, sandbox) => {
      refuseWhilePending(sandbox);
      if (sandbox.state !== "stopped") throw new BadRequestError("Sandbox is not in valid state");
      context.startSandbox(sandbox);
      await settled(sandbox, exchange.signal);
      exchange.json(200, sandboxJson(sandbox, context));
    }),
  );
  add(
    "POST",
    "/api/sandbox/:id/stop",
    withSandbox((exchange, sandbox) => {
      refuseWhilePending(sandbox);
      if (sandbox.state !== "started") throw new BadRequestError("Sandbox is not started");
      context.stopSandbox(sandbox);
      exchange.json(200, sandboxJson(sandbox, context));
    }),
  );
  add(
    "PUT",
    "/api/sandbox/:id/labels",
    withSandbox((exchange, sandbox) => {
      const body = readObject(exchange);
      if (typeof body.labels !== "object" || body.labels === null) throw new BadRequestError("labels is required");
      sandbox.metadata = stringMap(body, "labels");
      touch(sandbox);
      exchange.json(200, { labels: { ...sandbox.metadata } });
    }),
  );
  add(
    "GET",
    "/api/sandbox/:id/toolbox-proxy-url",
    withSandbox((exchange) => exchange.json(200, { url: context.toolboxProxyUrl })),
  );
  add(
    "GET",
    "/api/sandbox/:id/ports/:port/preview-url",
    withSandbox(async (exchange, sandbox) => {
      const port = parseInteger(exchange.params.port ?? "", "port", 1);
      if (port > 65_535) throw new BadRequestError("port must be an integer from 1 to 65535");
      if (!sandbox.data.handle) throw new ApiRefusal(409, `sandbox ${sandbox.id} is not started`);
      exchange.json(200, await context.previews.link(sandbox, port));
    }),
  );
  add(
    "POST",
    "/api/sandbox/:id/last-activity",
    withSandbox((exchange, sandbox) => {
      sandbox.data.lastActivityAt = Date.now();
      exchange.reply(201);
    }),
  );
  for (const [segment, field, minimum] of [
    ["autostop", "autoStopInterval", 0],
    ["autoarchive", "autoArchiveInterval", 0],
    ["autodelete", "autoDeleteInterval", -1],
  ] as const) {
    add(
      "POST",
      `/api/sandbox/:id/${segment}/:interval`,
      withSandbox((exchange, sandbox) => {
        const interval = parseInteger(exchange.params.interval ?? "", "interval", minimum);
        sandbox.data[field] = field === "autoArchiveInterval" ? resolveAutoArchiveInterval(interval) : interval;
        touch(sandbox);
        exchange.reply(201);
      }),
    );
  }
}

function findOrThrow(context: DaytonaContext, idOrName: string): DaytonaSandbox {
  const sandbox = context.find(idOrName);
  if (!sandbox) throw new ApiRefusal(404, `Sandbox with ID or name ${idOrName} not found`);
  return sandbox;
}

function refuseWhilePending(sandbox: DaytonaSandbox): void {
  if (sandbox.data.transition) throw new BadRequestError("Sandbox state change in progress");
}

/** Resolves once the sandbox's state change settled, or after {@link ANSWER_WAIT_MS}, or when the client went away. */
async function settled(sandbox: DaytonaSandbox, signal: AbortSignal): Promise<void> {
  const transition = sandbox.data.transition;
  if (!transition) return;
  // The wait ends with the transition: a 30 s timer left behind would hold the process open.
  const answered = new AbortController();
  try {
    await Promise.race([transition, delay(ANSWER_WAIT_MS, AbortSignal.any([signal, answered.signal]))]);
  } finally {
    answered.abort();
  }
}

function touch(sandbox: DaytonaSandbox): void {
  sandbox.data.updatedAt = Date.now();
}

async function create(exchange: Exchange, context: DaytonaContext): Promise<void> {
  const body = readObject(exchange);
  refuseFields(body, NOT_EMULATED_CREATE_FIELDS);
  const snapshot = optionalString(body, "snapshot");
  const buildInfo = readBuildInfo(body);
  if (snapshot !== undefined && buildInfo !== undefined) {
    throw new BadRequestError("Cannot specify a snapshot when using a build info entry");
  }
  if (buildInfo === undefined && ["cpu", "gpu", "memory", "disk"].some((field) => body[field])) {
    throw new BadRequestError("Cannot specify Sandbox resources when using a snapshot");
  }
  const from = snapshot === undefined ? undefined : context.snapshots.find(snapshot);
  if (snapshot !== undefined && !from && context.snapshots.wasDeleted(snapshot)) {
    throw new ApiRefusal(404, `Snapshot ${snapshot} not found`);
  }
  const input: CreateSandboxInput = {
    ...(from === undefined ? {} : { from }),
    name: optionalString(body, "name"),
    snapshot,
    buildInfo,
    user: optionalString(body, "user"),
    env: stringMap(body, "env"),
    labels: stringMap(body, "labels"),
    public: optionalBoolean(body, "public") ?? false,
    networkBlockAll: optionalBoolean(body, "networkBlockAll") ?? false,
    networkAllowList: readNetworkAllowList(optionalString(body, "networkAllowList")),
    domainAllowList: readDomainAllowList(optionalString(body, "domainAllowList")),
    target: optionalString(body, "target"),
    resources: {
      ...optionalField("cpu", optionalInteger(body, "cpu", 1)),
      ...optionalField("gpu", optionalInteger(body, "gpu", 0)),
      ...optionalField("memory", optionalInteger(body, "memory", 1)),
      ...optionalField("disk", optionalInteger(body, "disk", 1)),
    },
    autoStopInterval: optionalInteger(body, "autoStopInterval", 0),
    autoArchiveInterval: optionalInteger(body, "autoArchiveInterval", 0),
    autoDeleteInterval: optionalInteger(body, "autoDeleteInterval", -1),
    foreign: false,
  };
  let sandbox: DaytonaSandbox;
  try {
    sandbox = context.createSandbox(input);
  } catch (error) {
    throw new ApiRefusal(409, messageOf(error));
  }
  // From a snapshot the API answers once the sandbox started; a build is answered at once and polled.
  if (buildInfo === undefined) await settled(sandbox, exchange.signal);
  exchange.json(200, sandboxJson(sandbox, context));
}

function optionalField<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}

function readBuildInfo(body: Record<string, unknown>): CreateSandboxInput["buildInfo"] {
  const value = body.buildInfo;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw new BadRequestError("buildInfo must be an object");
  const build = value as Record<string, unknown>;
  const dockerfileContent = optionalString(build, "dockerfileContent");
  if (dockerfileContent === undefined) throw new BadRequestError("buildInfo.dockerfileContent is required");
  const hashes = build.contextHashes;
  if (hashes !== undefined && (!Array.isArray(hashes) || hashes.some((hash) => typeof hash !== "string"))) {
    throw new BadRequestError("buildInfo.contextHashes must be an array of strings");
  }
  if (Array.isArray(hashes) && hashes.length > 0) {
    // Context files live in the API's object storage, which is not emulated.
    throw new BadRequestError("image build contexts (buildInfo.contextHashes) are not emulated");
  }
  return { dockerfileContent };
}
