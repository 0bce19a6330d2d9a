/** `GET /v2/sandboxes` (filtered, paginated with `x-next-token`) and the deprecated `GET /sandboxes`. */

import type { Exchange } from "../harness/exchange.js";
import type { E2BContext, E2BSandbox } from "./context.js";
import { badRequest, listedJson } from "./control-plane-json.js";

/** The largest page the list API returns, whatever the client asks. */
const MAX_PAGE_LIMIT = 100;

/** `metadata=<url-encoded "k=v&k2=v2" with each key and value URL-encoded again>` as a map. */
function parseMetadataQuery(query: string | null): Record<string, string> | undefined {
  if (query === null || query === "") return undefined;
  const filter: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    filter[safeDecode(key)] = safeDecode(value);
  }
  return filter;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function matchesMetadata(sandbox: E2BSandbox, filter: Record<string, string> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, value]) => sandbox.metadata[key] === value);
}

/** Newest first (the API's default order), id as the tie-break so pages are stable. */
function compareNewestFirst(left: E2BSandbox, right: E2BSandbox): number {
  return right.data.startedAt - left.data.startedAt || (left.id < right.id ? 1 : left.id > right.id ? -1 : 0);
}

function encodeCursor(sandbox: E2BSandbox): string {
  return Buffer.from(`${sandbox.data.startedAt}:${sandbox.id}`).toString("base64url");
}

function decodeCursor(token: string): { startedAt: number; id: string } | undefined {
  const decoded = Buffer.from(token, "base64url").toString("utf8");
  const separator = decoded.indexOf(":");
  const startedAt = Number(decoded.slice(0, separator));
  if (separator <= 0 || !Number.isFinite(startedAt)) return undefined;
  return { startedAt, id: decoded.slice(separator + 1) };
}

export function listV2(exchange: Exchange, context: E2BContext): void {
  const query = exchange.url.searchParams;
  const limitParam = query.get("limit");
  let limit = context.pageSize;
  if (limitParam !== null) {
    const requested = Number(limitParam);
    if (!Number.isInteger(requested) || requested < 1 || requested > MAX_PAGE_LIMIT) {
      badRequest(exchange, `limit must be an integer between 1 and ${MAX_PAGE_LIMIT}`);
      return;
    }
    limit = Math.min(requested, context.pageSize);
  }
  const states = query
    .getAll("state")
    .flatMap((value) => value.split(","))
    .filter((value) => value !== "");
  for (const state of states) {
    if (state !== "running" && state !== "paused") {
      badRequest(exchange, `unknown state ${JSON.stringify(state)}`);
      return;
    }
  }
  const order = query.get("order") ?? "desc";
  if (order !== "asc" && order !== "desc") {
    badRequest(exchange, "order must be asc or desc");
    return;
  }
  const metadata = parseMetadataQuery(query.get("metadata"));
  const template = query.get("template");
  const startedAfter = query.get("startedAfter");
  const startedAfterMs = startedAfter === null ? undefined : Date.parse(startedAfter);
  if (startedAfterMs !== undefined && Number.isNaN(startedAfterMs)) {
    badRequest(exchange, "startedAfter must be an RFC 3339 timestamp");
    return;
  }

  let matching = context.registry
    .all()
    .filter(
      (sandbox) =>
        (states.length === 0 || states.includes(sandbox.state)) &&
        matchesMetadata(sandbox, metadata) &&
        (template === null || template === "" || sandbox.data.templateId === template) &&
        (startedAfterMs === undefined || sandbox.data.startedAt >= startedAfterMs),
    )
    .sort(compareNewestFirst);
  if (order === "asc") matching = matching.reverse();

  const token = query.get("nextToken");
  if (token !== null && token !== "") {
    const cursor = decodeCursor(token);
    if (!cursor) {
      badRequest(exchange, "invalid nextToken");
      return;
    }
    const after = (sandbox: E2BSandbox) => {
      const ahead =
        order === "desc" ? cursor.startedAt - sandbox.data.startedAt : sandbox.data.startedAt - cursor.startedAt;
      if (ahead !== 0) return ahead > 0;
      return order === "desc" ? sandbox.id < cursor.id : sandbox.id > cursor.id;
    };
    matching = matching.filter(after);
  }
  const page = matching.slice(0, limit);
  const headers: Record<string, string> = {
    "x-total-running": String(context.registry.all().filter((sandbox) => sandbox.state === "running").length),
  };
  const last = page[page.length - 1];
  if (matching.length > limit && last) headers["x-next-token"] = encodeCursor(last);
  exchange.json(
    200,
    page.map((sandbox) => listedJson(sandbox, context)),
    headers,
  );
}

export function listV1(exchange: Exchange, context: E2BContext): void {
  const metadata = parseMetadataQuery(exchange.url.searchParams.get("metadata"));
  const running = context.registry
    .all()
    .filter((sandbox) => sandbox.state === "running" && matchesMetadata(sandbox, metadata))
    .sort(compareNewestFirst);
  exchange.json(
    200,
    running.map((sandbox) => listedJson(sandbox, context)),
  );
}
