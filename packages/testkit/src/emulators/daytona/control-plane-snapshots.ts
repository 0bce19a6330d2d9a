/**
 * Daytona's snapshot routes for snapshots taken from sandboxes: `POST
 * /api/sandbox/{idOrName}/snapshot` (the sandbox is `snapshotting`, then back
 * in its state, still running), `GET /api/snapshots` (paginated by page),
 * `GET /api/snapshots/{id}` (id or name) and `DELETE /api/snapshots/{id}`.
 * Creating a sandbox from one is `create` in `control-plane.ts`, naming it.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { DaytonaContext } from "./context.js";
import { ApiRefusal } from "./control-plane.js";
import { BadRequestError, readObject } from "./request-body.js";
import { sandboxJson } from "./sandbox-json.js";
import type { DaytonaSnapshot } from "./snapshot-table.js";

/** Largest page `GET /api/snapshots` returns (`@PageLimit`'s bound, as for sandboxes). */
const MAX_PAGE_LIMIT = 200;

type Add = (method: string, pattern: string, handler: (exchange: Exchange) => Promise<void> | void) => void;

/** Registers the snapshot routes through the control plane's `add` (credentials, error envelope). */
export function registerSnapshotRoutes(add: Add, context: DaytonaContext): void {
  add("POST", "/api/sandbox/:idOrName/snapshot", (exchange) => createSnapshot(exchange, context));
  add("GET", "/api/snapshots", (exchange) => listSnapshots(exchange, context));
  add("GET", "/api/snapshots/:id", (exchange) => {
    exchange.json(200, snapshotJson(findSnapshot(context, exchange.params.id ?? ""), context));
  });
  add("DELETE", "/api/snapshots/:id", async (exchange) => {
    await context.snapshots.delete(findSnapshot(context, exchange.params.id ?? ""));
    exchange.reply(200);
  });
}

/** `SnapshotDto` of a snapshot taken from a sandbox: active at once, with the source's resources. */
function snapshotJson(snapshot: DaytonaSnapshot, context: DaytonaContext) {
  const source = context.find(snapshot.sourceSandboxId);
  const resources = source?.data.resources ?? { cpu: 1, gpu: 0, memory: 1, disk: 3 };
  const at = new Date(snapshot.createdAt).toISOString();
  return {
    id: snapshot.id,
    organizationId: "emulated-organization",
    general: false,
    name: snapshot.name,
    imageName: snapshot.name,
    state: "active",
    size: null,
    entrypoint: null,
    cpu: resources.cpu,
    gpu: resources.gpu,
    mem: resources.memory,
    disk: resources.disk,
    errorReason: null,
    createdAt: at,
    updatedAt: at,
    lastUsedAt: null,
    sourceSandboxId: snapshot.sourceSandboxId,
  };
}

function findSnapshot(context: DaytonaContext, idOrName: string): DaytonaSnapshot {
  const snapshot = context.snapshots.find(idOrName);
  if (!snapshot) throw new ApiRefusal(404, `Snapshot with ID or name ${idOrName} not found`);
  return snapshot;
}

async function createSnapshot(exchange: Exchange, context: DaytonaContext): Promise<void> {
  const body = readObject(exchange);
  if (typeof body.name !== "string" || body.name.trim() === "") {
    throw new BadRequestError("name must be a string");
  }
  const idOrName = exchange.params.idOrName ?? "";
  const sandbox = context.find(idOrName);
  if (!sandbox) throw new ApiRefusal(404, `Sandbox with ID or name ${idOrName} not found`);
  if (sandbox.data.transition) throw new BadRequestError("Sandbox state change in progress");
  if (sandbox.state !== "started") throw new BadRequestError("Sandbox is not started");
  if (context.snapshots.has(body.name)) throw new ApiRefusal(409, `Snapshot with name ${body.name} already exists`);
  context.snapshotSandbox(sandbox, body.name);
  exchange.json(200, sandboxJson(sandbox, context));
}

/** `GET /api/snapshots`: `page` (from 1), `limit` (1-200, default 100), `name` (substring); `{ items, total, page, totalPages }`. */
function listSnapshots(exchange: Exchange, context: DaytonaContext): void {
  const query = exchange.url.searchParams;
  const page = positiveInteger(query.get("page"), "page", 1, Number.MAX_SAFE_INTEGER);
  const limit = Math.min(positiveInteger(query.get("limit"), "limit", 100, MAX_PAGE_LIMIT), context.pageSize);
  const name = query.get("name")?.toLowerCase();
  const sourceSandboxId = query.get("sourceSandboxId");
  const matching = context.snapshots
    .all()
    .filter(
      (snapshot) =>
        (!name || snapshot.name.toLowerCase().includes(name)) &&
        (!sourceSandboxId || snapshot.sourceSandboxId === sourceSandboxId),
    );
  const items = matching.slice((page - 1) * limit, page * limit).map((snapshot) => snapshotJson(snapshot, context));
  exchange.json(200, { items, total: matching.length, page, totalPages: Math.ceil(matching.length / limit) });
}

function positiveInteger(value: string | null, field: string, fallback: number, max: number): number {
  if (value === null || value === "") return fallback;
  if (!/^\d+$/.test(value)) throw new BadRequestError(`${field} must be an integer number`);
  const number = Number(value);
  if (number < 1) throw new BadRequestError(`${field} must not be less than 1`);
  if (number > max) throw new BadRequestError(`${field} must not be greater than ${max}`);
  return number;
}
