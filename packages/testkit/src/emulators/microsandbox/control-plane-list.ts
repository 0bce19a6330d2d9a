/**
 * `GET /v1/sandboxes?limit&cursor&labels`: every sandbox of the organisation
 * (the emulator cannot tell "ours" from "theirs", and neither can the API),
 * newest first, AND-filtered by the URL-encoded JSON object `labels`, in
 * pages of `min(limit, pageSize)` with an opaque `next_cursor`.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { MicrosandboxContext, MicrosandboxSandbox } from "./context.js";
import { sandboxJson } from "./control-plane-json.js";
import { replyError } from "./errors.js";

/** The API's own bounds on `limit`. */
const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 20;

function compareNewestFirst(left: MicrosandboxSandbox, right: MicrosandboxSandbox): number {
  return right.createdAt - left.createdAt || (left.id < right.id ? 1 : left.id > right.id ? -1 : 0);
}

function encodeCursor(sandbox: MicrosandboxSandbox): string {
  return Buffer.from(`${sandbox.createdAt}:${sandbox.id}`).toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: number; id: string } | undefined {
  const decoded = Buffer.from(cursor, "base64url").toString("utf8");
  const separator = decoded.indexOf(":");
  const createdAt = Number(decoded.slice(0, separator));
  if (separator <= 0 || !Number.isFinite(createdAt)) return undefined;
  return { createdAt, id: decoded.slice(separator + 1) };
}

/** The `labels` filter, or `undefined` after answering 400. */
function readLabels(exchange: Exchange, raw: string | null): Record<string, string> | undefined {
  if (raw === null || raw === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    replyError(exchange, 400, "invalid_request", "labels must be a JSON object of strings");
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    replyError(exchange, 400, "invalid_request", "labels must be a JSON object of strings");
    return undefined;
  }
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== "string") {
      replyError(exchange, 400, "invalid_request", `labels.${key} must be a string`);
      return undefined;
    }
    labels[key] = value;
  }
  return labels;
}

/** Answer `GET /v1/sandboxes`: one filtered page and the cursor of the next. */
export function listSandboxes(exchange: Exchange, context: MicrosandboxContext): void {
  const query = exchange.url.searchParams;
  const limitParam = query.get("limit");
  const requested = limitParam === null ? DEFAULT_LIMIT : Number(limitParam);
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_LIMIT) {
    replyError(exchange, 400, "invalid_request", `limit must be an integer from 1 to ${MAX_LIMIT}`);
    return;
  }
  const limit = Math.min(requested, context.pageSize);
  const labels = readLabels(exchange, query.get("labels"));
  if (!labels) return;

  let matching = context.registry
    .all()
    .filter((sandbox) => Object.entries(labels).every(([key, value]) => sandbox.metadata[key] === value))
    .sort(compareNewestFirst);
  const cursorParam = query.get("cursor");
  if (cursorParam !== null && cursorParam !== "") {
    const cursor = decodeCursor(cursorParam);
    if (!cursor) {
      replyError(exchange, 400, "invalid_request", "invalid cursor");
      return;
    }
    matching = matching.filter(
      (sandbox) =>
        sandbox.createdAt < cursor.createdAt || (sandbox.createdAt === cursor.createdAt && sandbox.id < cursor.id),
    );
  }
  const page = matching.slice(0, limit);
  const last = page[page.length - 1];
  const hasMore = matching.length > limit;
  exchange.json(200, {
    data: page.map((sandbox) => sandboxJson(sandbox, context)),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(last) : null,
  });
}
