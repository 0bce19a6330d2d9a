/**
 * The routes of the emulated Kubernetes API server: bearer-token auth on
 * every request, get/list/watch of the agent-sandbox kinds and pods, create
 * and delete of claims (with `propagationPolicy`), merge-patch of a
 * Sandbox's `spec.operatingMode`, and errors as `Status` objects.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { EmulatorServer } from "../harness/http-server.js";
import type { ErrorReplier } from "../harness/router.js";
import type { ClaimController, PropagationPolicy } from "./claims.js";
import { CLAIMS, PODS, type ResourceKind, SANDBOXES, TEMPLATES, WARM_POOLS } from "./kinds.js";
import type { KubeObject, ObjectStore } from "./object-store.js";
import type { SandboxController } from "./sandboxes.js";
import { failureStatus, KubeApiError, type StatusReason } from "./status.js";
import { isWatch, serveList, serveWatch } from "./watch.js";

/** What the API routes act on. */
export interface ApiServerParts {
  readonly token: string;
  readonly store: ObjectStore;
  readonly claims: ClaimController;
  readonly sandboxes: SandboxController;
  /** Serves `pods/{name}/exec` (a WebSocket upgrade); the exchange is authorized already. */
  readonly exec: (exchange: Exchange, namespace: string, name: string) => Promise<void>;
}

const REASONS: Record<number, StatusReason> = {
  400: "BadRequest",
  401: "Unauthorized",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  410: "Expired",
  415: "UnsupportedMediaType",
  422: "Invalid",
};

/** Errors the harness itself produces (faults, crashes), as `Status` objects. */
export const statusErrorReply: ErrorReplier = (exchange, status, message, retryAfterSeconds) => {
  const error = new KubeApiError(status, REASONS[status] ?? "InternalError", message);
  exchange.json(
    status,
    failureStatus(error),
    retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) },
  );
};

/** Register every API route on the server. */
export function registerApiRoutes(server: EmulatorServer, parts: ApiServerParts): void {
  const route = (method: string, pattern: string, handler: (exchange: Exchange) => Promise<void> | void) =>
    server.route({ method, pattern, handler: guarded(parts.token, handler) });

  for (const kind of [CLAIMS, SANDBOXES, TEMPLATES, WARM_POOLS, PODS]) {
    const collection = collectionPattern(kind);
    route("GET", collection, (exchange) => {
      const namespace = exchange.params.namespace!;
      if (isWatch(exchange)) return serveWatch(exchange, parts.store, kind, namespace);
      serveList(exchange, parts.store, kind, namespace);
    });
    route("GET", `${collection}/:name`, (exchange) => {
      exchange.json(200, parts.store.get(kind, exchange.params.namespace!, exchange.params.name!));
    });
  }

  route("POST", collectionPattern(CLAIMS), (exchange) => {
    exchange.json(201, parts.claims.create(exchange.params.namespace!, readObject(exchange)));
  });
  route("DELETE", `${collectionPattern(CLAIMS)}/:name`, (exchange) => {
    const result = parts.claims.delete(exchange.params.namespace!, exchange.params.name!, propagationOf(exchange));
    exchange.json(result.pending ? 202 : 200, result.object);
  });

  route("POST", collectionPattern(SANDBOXES), (exchange) => {
    const body = readObject(exchange);
    const metadata = (body.metadata ?? {}) as {
      name?: string;
      generateName?: string;
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
    const spec = (body.spec ?? {}) as {
      podTemplate?: Record<string, unknown>;
      operatingMode?: string;
      shutdownTime?: string;
    };
    if (spec.podTemplate === undefined) {
      throw invalid(SANDBOXES, metadata.name ?? "", "spec.podTemplate: Required value");
    }
    checkOperatingMode(spec.operatingMode, metadata.name ?? "");
    const created = parts.sandboxes.create({
      namespace: exchange.params.namespace!,
      ...(metadata.name === undefined ? {} : { name: metadata.name }),
      ...(metadata.generateName === undefined ? {} : { generateName: metadata.generateName }),
      labels: { "agents.x-k8s.io/launch-type": "cold", ...(metadata.labels ?? {}) },
      annotations: { ...(metadata.annotations ?? {}) },
      podTemplate: spec.podTemplate,
      ...(spec.operatingMode === undefined ? {} : { operatingMode: spec.operatingMode }),
      ...(spec.shutdownTime === undefined ? {} : { shutdownTime: spec.shutdownTime }),
    });
    exchange.json(201, created);
  });
  route("PATCH", `${collectionPattern(SANDBOXES)}/:name`, (exchange) => {
    const namespace = exchange.params.namespace!;
    const name = exchange.params.name!;
    const patch = readPatch(exchange);
    const patchMeta = (patch.metadata ?? {}) as { resourceVersion?: string };
    const mode = (patch.spec as { operatingMode?: unknown } | undefined)?.operatingMode;
    if (mode !== undefined) checkOperatingMode(mode, name);
    const updated = parts.store.update(
      SANDBOXES,
      namespace,
      name,
      (object) => {
        const merged = mergePatch(
          { metadata: object.metadata, spec: object.spec ?? {} },
          {
            ...(patch.metadata === undefined ? {} : { metadata: patch.metadata }),
            ...(patch.spec === undefined ? {} : { spec: patch.spec }),
          },
        ) as Pick<KubeObject, "metadata" | "spec">;
        object.metadata = merged.metadata;
        object.spec = merged.spec;
      },
      patchMeta.resourceVersion,
    );
    parts.sandboxes.reconcileMode(namespace, name);
    exchange.json(200, updated);
  });
  route("DELETE", `${collectionPattern(SANDBOXES)}/:name`, async (exchange) => {
    const namespace = exchange.params.namespace!;
    const name = exchange.params.name!;
    const sandbox = parts.store.get(SANDBOXES, namespace, name);
    const deletion = parts.sandboxes.delete(namespace, name);
    if (propagationOf(exchange) === "Foreground") {
      exchange.json(202, parts.store.find(SANDBOXES, namespace, name) ?? sandbox);
      await deletion;
      return;
    }
    await deletion;
    exchange.json(200, sandbox);
  });

  for (const kind of [TEMPLATES, WARM_POOLS]) {
    route("POST", collectionPattern(kind), (exchange) => {
      const body = readObject(exchange);
      const namespace = exchange.params.namespace!;
      const created = parts.store.create(kind, {
        ...body,
        metadata: { ...((body.metadata ?? {}) as object), namespace },
      });
      if (kind === WARM_POOLS) parts.claims.fillPool(namespace, created.metadata.name);
      exchange.json(201, created);
    });
  }

  for (const method of ["GET", "POST"]) {
    route(method, `${collectionPattern(PODS)}/:name/exec`, (exchange) =>
      parts.exec(exchange, exchange.params.namespace!, exchange.params.name!),
    );
  }
}

/** `/apis/<group>/<version>/namespaces/:namespace/<plural>` (or `/api/v1/...` for the core group). */
function collectionPattern(kind: ResourceKind): string {
  const prefix = kind.group === "" ? `/api/${kind.version}` : `/apis/${kind.group}/${kind.version}`;
  return `${prefix}/namespaces/:namespace/${kind.plural}`;
}

/** Bearer-token check and KubeApiError → Status answer around a handler. */
function guarded(token: string, handler: (exchange: Exchange) => Promise<void> | void) {
  return async (exchange: Exchange) => {
    try {
      if (exchange.header("authorization") !== `Bearer ${token}`) {
        throw new KubeApiError(401, "Unauthorized", "Unauthorized");
      }
      await handler(exchange);
    } catch (error) {
      if (!(error instanceof KubeApiError) || exchange.answered) throw error;
      exchange.json(error.code, failureStatus(error));
    }
  };
}

function readObject(exchange: Exchange): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(exchange.body.toString("utf8"));
  } catch {
    throw new KubeApiError(400, "BadRequest", "the request body is not valid JSON");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new KubeApiError(400, "BadRequest", "the request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

function readPatch(exchange: Exchange): Record<string, unknown> {
  const type = (exchange.header("content-type") ?? "").split(";")[0]!.trim();
  if (type !== "application/merge-patch+json" && type !== "application/strategic-merge-patch+json") {
    throw new KubeApiError(
      415,
      "UnsupportedMediaType",
      `the body of the request was in an unknown format - accepted media types include: application/merge-patch+json, application/strategic-merge-patch+json (got ${type || "none"})`,
    );
  }
  return readObject(exchange);
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    target !== null && typeof target === "object" && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function propagationOf(exchange: Exchange): PropagationPolicy {
  let policy = exchange.url.searchParams.get("propagationPolicy") ?? undefined;
  if (exchange.body.length > 0) {
    const options = readObject(exchange) as { propagationPolicy?: string; orphanDependents?: boolean };
    policy = options.propagationPolicy ?? (options.orphanDependents === true ? "Orphan" : policy);
  }
  if (policy === undefined) return "Background";
  if (policy === "Foreground" || policy === "Background" || policy === "Orphan") return policy;
  throw new KubeApiError(400, "BadRequest", `invalid propagationPolicy: ${policy}`);
}

function checkOperatingMode(mode: unknown, name: string): void {
  if (mode === undefined || mode === "Running" || mode === "Suspended") return;
  throw invalid(
    SANDBOXES,
    name,
    `spec.operatingMode: Unsupported value: ${JSON.stringify(mode)}: supported values: "Running", "Suspended"`,
  );
}

function invalid(kind: ResourceKind, name: string, detail: string): KubeApiError {
  return new KubeApiError(422, "Invalid", `${kind.kind}.${kind.group} "${name}" is invalid: ${detail}`, {
    name,
    group: kind.group,
    kind: kind.kind,
  });
}
