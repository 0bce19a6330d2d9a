/** `GET /v2/sandboxes` (filtered, paginated with `x-next-token`) and the deprecated `GET /sandboxes`. */

import type { Exchange } from "../harness/exchange.js";
import type { E2BContext, E2BSandbox } from "./context.js";
import { badRequest, listedJson, validationError } from "./control-plane-json.js";

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
  const states = query
    .getAll("state")
    .flatMap((value) => value.split(","))
    .filter((value) => value !== "");
  for (const state of states) {
    if (state !== "running" && state !== "paused") {
      validationError(
        exchange,
        `parameter "state" in query has an error: value ${state} is not one of the allowed values ["running","paused"]`,
      );
      return;
    }
  }
  const order = query.get("order") ?? "desc";
  if (order !== "asc" && order !== "desc") {
    validationError(
      exchange,
      `parameter "order" in query has an error: value ${order} is not one of the allowed values ["asc","desc"]`,
    );
    return;
  }
  const metadata = parseMetadataQuery(query.get("metadata"));
  const template = query.get("template");
  const startedAfter = query.get("startedAfter");
  const startedAfterMs = startedAfter === null ? undefined : Date.parse(startedAfter);
  if (startedAfterMs !== undefined && Number.isNaN(startedAfterMs)) {
    validationError(
      exchange,
      'parameter "startedAfter" in query has an error: string doesn\'t match the format "date-time"',
    );
    return;
  }

  const filtered = context.registry
    .all()
    .filter(
      (sandbox) =>
        (states.length === 0 || states.includes(sandbox.state)) &&
        matchesMetadata(sandbox, metadata) &&
        (template === null || template === "" || sandbox.data.templateId === template) &&
        (startedAfterMs === undefined || sandbox.data.startedAt >= startedAfterMs),
    )
    .sort(compareNewestFirst);
  let matching = order === "asc" ? [...filtered].reverse() : filtered;

  const token = query.get("nextToken");
  if (token !== null && token !== "") {
    const cursor = decodeCursor(token);
    if (!cursor) {
      badRequest(exchange, "Invalid next token");
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
  // Running sandboxes matching the filters before pagination, only when running ones were asked for.
  const headers: Record<string, string> = {};
  if (states.length === 0 || states.includes("running")) {
    headers["x-total-running"] = String(filtered.filter((sandbox) => sandbox.state === "running").length);
  }
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
