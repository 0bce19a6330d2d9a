/**
 * E2B's snapshot routes: `POST /sandboxes/{id}/snapshots` (the sandbox keeps
 * running), `GET /snapshots` (the team's snapshot templates, paginated with
 * `x-next-token`) and `DELETE /templates/{id}` (how the SDK deletes a
 * snapshot). Creating a sandbox from a snapshot is `create` in
 * `control-plane.ts`, with the snapshot's id as `templateID`.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { E2BContext } from "./context.js";
import { badRequest, validationError } from "./control-plane-json.js";
import { messageOf } from "./errors.js";
import { DEFAULT_TAG, type E2BSnapshot } from "./snapshot-table.js";

/** The largest page the list API returns, whatever the client asks (`snapshotTemplatesMaxLimit`). */
const MAX_PAGE_LIMIT = 100;
/** An alias or template id, after E2B lowercases and trims it (`cleanTemplateIDOrAlias`). */
const ALIAS = /^[a-z0-9_-]+$/;
/** A tag (`cleanTag`). */
const TAG = /^[a-z0-9_.-]+$/;

/** A snapshot as `SnapshotInfo`. */
function snapshotJson(snapshot: E2BSnapshot) {
  return { snapshotID: snapshot.id, names: [...snapshot.names] };
}

/** `POST /sandboxes/{id}/snapshots`: body `SandboxSnapshotRequest` (`name` optional). */
export async function createSnapshot(exchange: Exchange, context: E2BContext): Promise<void> {
  let body: Record<string, unknown> = {};
  if (exchange.body.length > 0) {
    let value: unknown;
    try {
      value = JSON.parse(exchange.body.toString("utf8"));
    } catch {
      validationError(exchange, "request body has an error: failed to decode request body: invalid JSON");
      return;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      validationError(
        exchange,
        'request body has an error: doesn\'t match schema: Error at "": value must be an object',
      );
      return;
    }
    body = value as Record<string, unknown>;
  }
  if (body.name !== undefined && typeof body.name !== "string") {
    validationError(
      exchange,
      'request body has an error: doesn\'t match schema: Error at "/name": value must be a string',
    );
    return;
  }
  const naming = parseName(exchange, body.name, context.teamSlug);
  if (!naming) return;
  const id = exchange.params.id ?? "";
  const sandbox = context.registry.get(id);
  // A paused sandbox is not held by an orchestrator, so E2B's lookup does not find it.
  if (sandbox?.state !== "running") {
    exchange.json(404, {
      code: 404,
      message: `Sandbox ${JSON.stringify(id)} doesn't exist or you don't have access to it`,
    });
    return;
  }
  let snapshot: E2BSnapshot;
  try {
    snapshot = await context.snapshots.take(
      { id: sandbox.id, handle: sandbox.data.handle, size: sandbox.data.size },
      { team: context.teamSlug, ...naming },
    );
  } catch (error) {
    exchange.json(500, { code: 500, message: `Error creating snapshot template: ${messageOf(error)}` });
    return;
  }
  exchange.json(201, snapshotJson(snapshot));
}

/** The alias and tag of a snapshot name, `{ alias: undefined }` without one, or `undefined` after answering 400. */
function parseName(
  exchange: Exchange,
  name: string | undefined,
  team: string,
): { alias: string | undefined; tag: string } | undefined {
  if (name === undefined) return { alias: undefined, tag: DEFAULT_TAG };
  const [identifier = "", tag] = name.trim().toLowerCase().split(":", 2);
  const slash = identifier.indexOf("/");
  const namespace = slash < 0 ? undefined : identifier.slice(0, slash);
  const alias = slash < 0 ? identifier : identifier.slice(slash + 1);
  if (!ALIAS.test(alias) || (tag !== undefined && !TAG.test(tag))) {
    badRequest(exchange, `Invalid name: invalid template ID: ${name}`);
    return undefined;
  }
  if (namespace !== undefined && namespace !== team) {
    badRequest(exchange, `namespace '${namespace}' must match your team '${team}'`);
    return undefined;
  }
  return { alias, tag: tag ?? DEFAULT_TAG };
}

/** `GET /snapshots`: `limit` 1-100, `nextToken`, `sandboxID`, `name`; newest first. */
export function listSnapshots(exchange: Exchange, context: E2BContext): void {
  const query = exchange.url.searchParams;
  const limitParam = query.get("limit");
  let limit = context.pageSize;
  if (limitParam !== null) {
    const requested = Number(limitParam);
    const reason = !/^-?\d+$/.test(limitParam)
      ? "value must be an integer"
      : requested < 1
        ? "number must be at least 1"
        : requested > MAX_PAGE_LIMIT
          ? `number must be at most ${MAX_PAGE_LIMIT}`
          : undefined;
    if (reason) {
      validationError(exchange, `parameter "limit" in query has an error: ${reason}`);
      return;
    }
    limit = Math.min(requested, context.pageSize);
  }
  const sandboxId = query.get("sandboxID");
  const name = query.get("name");
  const named = name === null || name === "" ? undefined : context.snapshots.find(name);
  let matching = context.snapshots
    .all()
    .reverse()
    .filter(
      (snapshot) =>
        (sandboxId === null || sandboxId === "" || snapshot.sourceSandboxId === sandboxId) &&
        (name === null || name === "" || snapshot === named),
    );
  const token = query.get("nextToken");
  if (token !== null && token !== "") {
    const position = matching.findIndex((snapshot) => Buffer.from(snapshot.id).toString("base64url") === token);
    if (position < 0) {
      badRequest(exchange, "Invalid next token");
      return;
    }
    matching = matching.slice(position + 1);
  }
  const page = matching.slice(0, limit);
  const last = page[page.length - 1];
  const headers: Record<string, string> = {};
  if (matching.length > limit && last) headers["x-next-token"] = Buffer.from(last.id).toString("base64url");
  exchange.json(200, page.map(snapshotJson), headers);
}

/** `DELETE /templates/{id}` of a snapshot template (its snapshot id, name or template id): 204, else 404. */
export async function deleteSnapshotTemplate(exchange: Exchange, context: E2BContext): Promise<void> {
  const reference = exchange.params.id ?? "";
  const snapshot = context.snapshots.find(reference);
  if (!snapshot) {
    exchange.json(404, { code: 404, message: `Template '${reference}' not found` });
    return;
  }
  try {
    await context.snapshots.delete(snapshot);
  } catch (error) {
    exchange.json(500, { code: 500, message: `Error deleting template: ${messageOf(error)}` });
    return;
  }
  exchange.reply(204);
}
