/**
 * `GET /api/sandbox`: filters (labels, id and name prefixes, states,
 * snapshots, targets, resources, dates), sorting, and cursor pagination with
 * a small page size so callers must follow `nextCursor`. A query parameter
 * the emulator does not know is refused with 400, never ignored.
 *
 * @module
 */

import type { Exchange } from "../harness/exchange.js";
import type { DaytonaContext, DaytonaSandbox } from "./context.js";
import { BadRequestError } from "./request-body.js";
import { sandboxListItemJson } from "./sandbox-json.js";

/** The largest `limit` the API accepts (`@PageLimit`: `@Min(1) @Max(200)`). */
const MAX_LIMIT = 200;

/** The states a list may filter by: every `SandboxState` but `destroyed` (`VALID_QUERY_STATES`). */
const VALID_QUERY_STATES = [
  "creating",
  "restoring",
  "destroying",
  "started",
  "stopped",
  "starting",
  "stopping",
  "error",
  "build_failed",
  "pending_build",
  "building_snapshot",
  "unknown",
  "pulling_snapshot",
  "archived",
  "archiving",
  "resizing",
  "snapshotting",
  "forking",
  "pausing",
  "paused",
  "resuming",
];

type SortKey = number | string;

const SORT_FIELDS: Readonly<Record<string, (sandbox: DaytonaSandbox) => SortKey>> = {
  createdAt: (sandbox) => sandbox.createdAt,
  lastActivityAt: (sandbox) => sandbox.data.lastActivityAt,
  name: (sandbox) => sandbox.data.name.toLowerCase(),
  cpu: (sandbox) => sandbox.data.resources.cpu,
  memoryGib: (sandbox) => sandbox.data.resources.memory,
  diskGib: (sandbox) => sandbox.data.resources.disk,
};

/** Parameters that select nothing in the emulator (no warm pools), accepted as such. */
const ACCEPTED_WITHOUT_EFFECT = new Set(["includeWarm"]);

type Filter = (sandbox: DaytonaSandbox) => boolean;

/** Answer one page of the organization's sandboxes. */
export function listSandboxes(exchange: Exchange, context: DaytonaContext): void {
  const query = exchange.url.searchParams;
  const filters: Filter[] = [];
  let limit = context.pageSize;
  let sortField = "createdAt";
  let descending = true;
  let includeErrored = false;
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    const value = values[values.length - 1] ?? "";
    switch (name) {
      case "cursor":
        break;
      case "limit":
        limit = Math.min(parseLimit(value), context.pageSize);
        break;
      case "id":
        filters.push((sandbox) => sandbox.id.toLowerCase().startsWith(value.toLowerCase()));
        break;
      case "name":
        filters.push((sandbox) => sandbox.data.name.toLowerCase().startsWith(value.toLowerCase()));
        break;
      case "labels": {
        const labels = parseLabels(value);
        filters.push((sandbox) => Object.entries(labels).every(([key, label]) => sandbox.metadata[key] === label));
        break;
      }
      case "includeErroredDeleted":
        includeErrored = parseBoolean(value, name);
        break;
      case "states":
        for (const state of values) {
          if (!VALID_QUERY_STATES.includes(state)) {
            throw new BadRequestError(
              `each value must be one of the following values: ${VALID_QUERY_STATES.join(", ")}`,
            );
          }
        }
        filters.push((sandbox) => values.includes(sandbox.state));
        break;
      case "snapshots":
        filters.push((sandbox) => sandbox.data.snapshot !== undefined && values.includes(sandbox.data.snapshot));
        break;
      case "regionIds":
        filters.push((sandbox) => values.includes(sandbox.data.target));
        break;
      case "sandboxClasses":
        filters.push((sandbox) => values.includes(sandbox.data.sandboxClass));
        break;
      case "isPublic": {
        const wanted = parseBoolean(value, name);
        filters.push((sandbox) => sandbox.data.public === wanted);
        break;
      }
      case "isRecoverable": {
        const wanted = parseBoolean(value, name);
        filters.push(() => wanted === false);
        break;
      }
      case "sort":
        if (!(value in SORT_FIELDS))
          throw new BadRequestError(`sort must be one of ${Object.keys(SORT_FIELDS).join(", ")}`);
        sortField = value;
        break;
      case "order":
        if (value !== "asc" && value !== "desc") throw new BadRequestError("order must be asc or desc");
        descending = value === "desc";
        break;
      default: {
        const filter = rangeFilter(name, value);
        if (filter) filters.push(filter);
        else if (!ACCEPTED_WITHOUT_EFFECT.has(name))
          throw new BadRequestError(`query parameter ${name} is not emulated`);
      }
    }
  }

  const sortKey = SORT_FIELDS[sortField]!;
  const compare = (left: [SortKey, string], right: [SortKey, string]) => {
    const order =
      left[0] < right[0] ? -1 : left[0] > right[0] ? 1 : left[1] < right[1] ? -1 : left[1] > right[1] ? 1 : 0;
    return descending ? -order : order;
  };
  let matching = context.registry
    .all()
    .filter((sandbox) => includeErrored || sandbox.state !== "error")
    .filter((sandbox) => filters.every((filter) => filter(sandbox)))
    .map((sandbox) => ({ sandbox, key: [sortKey(sandbox), sandbox.id] as [SortKey, string] }))
    .sort((left, right) => compare(left.key, right.key));
  const cursor = query.get("cursor");
  if (cursor !== null && cursor !== "") {
    const after = decodeCursor(cursor);
    matching = matching.filter((entry) => compare(entry.key, after) > 0);
  }
  const page = matching.slice(0, limit);
  const last = page[page.length - 1];
  exchange.json(200, {
    items: page.map((entry) => sandboxListItemJson(entry.sandbox, context)),
    nextCursor: matching.length > limit && last ? encodeCursor(last.key) : null,
  });
}

/** `limit` as class-validator checks it: `@IsInt() @Min(1) @Max(200)`, each with its own message. */
function parseLimit(text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isInteger(value)) throw new BadRequestError("limit must be an integer number");
  if (value < 1) throw new BadRequestError("limit must not be less than 1");
  if (value > MAX_LIMIT) throw new BadRequestError(`limit must not be greater than ${MAX_LIMIT}`);
  return value;
}

function parseLabels(text: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequestError("labels must be a JSON object of strings");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new BadRequestError("labels must be a JSON object of strings");
  }
  for (const entry of Object.values(value)) {
    if (typeof entry !== "string") throw new BadRequestError("labels must be a JSON object of strings");
  }
  return value as Record<string, string>;
}

function parseBoolean(text: string, field: string): boolean {
  if (text === "true") return true;
  if (text === "false") return false;
  throw new BadRequestError(`${field} must be true or false`);
}

/** `minCpu`/`maxCpu` style numbers and `createdAtAfter` style dates; `undefined` for any other name. */
function rangeFilter(name: string, value: string): Filter | undefined {
  const numeric: Readonly<Record<string, (sandbox: DaytonaSandbox) => number>> = {
    Cpu: (sandbox) => sandbox.data.resources.cpu,
    Gpu: (sandbox) => sandbox.data.resources.gpu,
    MemoryGiB: (sandbox) => sandbox.data.resources.memory,
    DiskGiB: (sandbox) => sandbox.data.resources.disk,
  };
  const dates: Readonly<Record<string, (sandbox: DaytonaSandbox) => number>> = {
    createdAt: (sandbox) => sandbox.createdAt,
    lastEvent: (sandbox) => sandbox.data.lastActivityAt,
  };
  const bound = /^(min|max)(.+)$/.exec(name);
  const numberOf = bound ? numeric[bound[2]!] : undefined;
  if (bound && numberOf) {
    const limit = Number(value);
    if (value.trim() === "" || !Number.isFinite(limit)) throw new BadRequestError(`${name} must be a number`);
    return bound[1] === "min" ? (sandbox) => numberOf(sandbox) >= limit : (sandbox) => numberOf(sandbox) <= limit;
  }
  const edge = /^(.+)(After|Before)$/.exec(name);
  const dateOf = edge ? dates[edge[1]!] : undefined;
  if (edge && dateOf) {
    const limit = Date.parse(value);
    if (Number.isNaN(limit)) throw new BadRequestError(`${name} must be an ISO-8601 timestamp`);
    return edge[2] === "After" ? (sandbox) => dateOf(sandbox) > limit : (sandbox) => dateOf(sandbox) < limit;
  }
  return undefined;
}

function encodeCursor(key: [SortKey, string]): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

function decodeCursor(cursor: string): [SortKey, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      (typeof value[0] === "number" || typeof value[0] === "string") &&
      typeof value[1] === "string"
    ) {
      return [value[0], value[1]];
    }
  } catch {
    // Answered below.
  }
  throw new BadRequestError("invalid cursor");
}
