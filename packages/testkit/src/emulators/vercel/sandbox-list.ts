/**
 * `GET /v2/sandboxes?project=`: every sandbox of the project, running or
 * stopped, filtered by `namePrefix` (only with `sortBy=name`) and one
 * `tags=key:value`, sorted, and paged (`limit` 1 to 50) with an opaque
 * `cursor` (`pagination.next`).
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import { checkProject } from "./auth.js";
import type { VercelContext, VercelSandbox } from "./context.js";
import { badRequest } from "./errors.js";
import { sandboxJson } from "./payloads.js";

/** The largest `limit` the API accepts (REST `list-sandboxes`: 1 to 50). */
const MAX_LIMIT = 50;
const SORT_FIELDS = ["createdAt", "name", "statusUpdatedAt"] as const;
type SortField = (typeof SORT_FIELDS)[number];

/** Answer `GET /v2/sandboxes` with one page of the project's sandboxes. */
export function listRoute(exchange: Exchange, context: VercelContext): void {
  const query = exchange.url.searchParams;
  if (!checkProject(exchange, context, query.get("project"))) return;
  const limit = readLimit(exchange, query.get("limit"), context.pageSize);
  if (limit === undefined) return;
  const namePrefix = query.get("namePrefix") ?? "";
  const sortByParam = query.get("sortBy");
  if (sortByParam !== null && !(SORT_FIELDS as readonly string[]).includes(sortByParam)) {
    badRequest(exchange, `sortBy must be one of ${SORT_FIELDS.join(", ")}`);
    return;
  }
  // REST `list-sandboxes`: `namePrefix` is "only valid when sortBy=name"; the
  // API does not imply the sort from the prefix, it refuses the request.
  if (namePrefix !== "" && sortByParam !== "name") {
    badRequest(exchange, "namePrefix is only valid when sortBy=name");
    return;
  }
  const sortBy: SortField = (sortByParam as SortField | null) ?? "createdAt";
  const sortOrder = query.get("sortOrder") ?? "desc";
  if (sortOrder !== "asc" && sortOrder !== "desc") {
    badRequest(exchange, "sortOrder must be asc or desc");
    return;
  }
  const tagFilters = query.getAll("tags");
  if (tagFilters.length > 1) {
    badRequest(exchange, "filtering by more than one tag is not supported");
    return;
  }
  const tag = tagFilters.length === 1 ? parseTag(tagFilters[0]!) : undefined;
  if (tag === null) {
    badRequest(exchange, "tags must look like key:value");
    return;
  }

  const direction = sortOrder === "asc" ? 1 : -1;
  let matching = context.registry
    .all()
    .filter(
      (sandbox) =>
        sandbox.data.projectId === context.projectId &&
        sandbox.id.startsWith(namePrefix) &&
        (tag === undefined || sandbox.metadata[tag.key] === tag.value),
    )
    .sort((left, right) => direction * compareKeys(keyOf(left, sortBy), keyOf(right, sortBy)));

  const cursorParam = query.get("cursor");
  if (cursorParam !== null && cursorParam !== "") {
    const cursor = decodeCursor(cursorParam, sortBy);
    if (!cursor) {
      badRequest(exchange, "invalid cursor");
      return;
    }
    matching = matching.filter((sandbox) => direction * compareKeys(keyOf(sandbox, sortBy), cursor) > 0);
  }
  const page = matching.slice(0, limit);
  const last = page[page.length - 1];
  exchange.json(200, {
    sandboxes: page.map(sandboxJson),
    pagination: {
      count: page.length,
      next: matching.length > limit && last ? encodeCursor(keyOf(last, sortBy), sortBy) : null,
    },
  });
}

function readLimit(exchange: Exchange, value: string | null, pageSize: number): number | undefined {
  if (value === null) return pageSize;
  const requested = Number(value);
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_LIMIT) {
    badRequest(exchange, `limit must be an integer from 1 to ${MAX_LIMIT}`);
    return undefined;
  }
  // The emulator's page size caps every page, so callers must follow the cursor.
  return Math.min(requested, pageSize);
}

/** `key:value` (the value may contain `:`), `null` when malformed. */
function parseTag(filter: string): { key: string; value: string } | null {
  const separator = filter.indexOf(":");
  if (separator <= 0) return null;
  return { key: filter.slice(0, separator), value: filter.slice(separator + 1) };
}

/** A sort key with the name as the tie-break, so every position in the order is unique. */
type SortKey = readonly [string | number, string];

function keyOf(sandbox: VercelSandbox, sortBy: SortField): SortKey {
  switch (sortBy) {
    case "name":
      return [sandbox.id, sandbox.id];
    case "statusUpdatedAt":
      return [sandbox.data.statusUpdatedAt, sandbox.id];
    default:
      return [sandbox.createdAt, sandbox.id];
  }
}

function compareKeys(left: SortKey, right: SortKey): number {
  for (const index of [0, 1] as const) {
    if (left[index] < right[index]) return -1;
    if (left[index] > right[index]) return 1;
  }
  return 0;
}

function encodeCursor(key: SortKey, sortBy: SortField): string {
  return Buffer.from(JSON.stringify([sortBy, key[0], key[1]])).toString("base64url");
}

function decodeCursor(cursor: string, sortBy: SortField): SortKey | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 3 || value[0] !== sortBy || typeof value[2] !== "string") {
      return undefined;
    }
    const primary: unknown = value[1];
    if (sortBy === "name" ? typeof primary !== "string" : typeof primary !== "number") return undefined;
    return [primary as string | number, value[2]];
  } catch {
    return undefined;
  }
}
