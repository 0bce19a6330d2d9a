/**
 * `GET /v5/vms`: filters `state`, `slug`, `snapshotId` and
 * `metadata=k:v,k2:v2` (every pair must match), paged by `limit`/`offset`.
 * The page is at most the emulator's page size whatever `limit` asks, so a
 * caller has to follow `offset` until it has `totalCount` VMs. Oldest first,
 * id as the tie-break, so pages are stable while VMs are created.
 *
 * @module
 */

import { type ApiReply, badRequest, jsonReply } from "./api.js";
import type { FreestyleContext, FreestyleVm, VmState } from "./context.js";
import type { ApiCall } from "./routes.js";
import { vmJson } from "./vm-json.js";

const STATES: readonly VmState[] = ["starting", "running", "pausing", "paused", "stopped"];
const MAX_LIMIT = 1000;

/** `k:v,k2:v2` as pairs; a value may contain `:` (only the first one separates). */
export function parseMetadataFilter(filter: string): [string, string][] {
  return filter
    .split(",")
    .filter((pair) => pair !== "")
    .map((pair) => {
      const separator = pair.indexOf(":");
      if (separator <= 0) throw badRequest(`metadata filter ${JSON.stringify(pair)} must be key:value`);
      return [pair.slice(0, separator), pair.slice(separator + 1)];
    });
}

/** An integer query parameter within `[min, max]`; `undefined` when absent, 400 otherwise. */
export function integerParam(query: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw badRequest(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function compareOldestFirst(left: FreestyleVm, right: FreestyleVm): number {
  return left.createdAt - right.createdAt || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0);
}

/** Answer a list request. */
export function listVms(call: ApiCall, context: FreestyleContext): ApiReply {
  const query = call.query;
  const state = query.get("state");
  if (state !== null && state !== "" && !(STATES as readonly string[]).includes(state)) {
    throw badRequest(`state must be one of ${STATES.join(", ")}`);
  }
  const slug = query.get("slug");
  const snapshotId = query.get("snapshotId");
  const metadata = parseMetadataFilter(query.get("metadata") ?? "");
  const limit = Math.min(integerParam(query, "limit", 1, MAX_LIMIT) ?? context.pageSize, context.pageSize);
  const offset = integerParam(query, "offset", 0, Number.MAX_SAFE_INTEGER) ?? 0;

  const matching = context.registry
    .all()
    .filter(
      (vm) =>
        (!state || vm.state === state) &&
        (!slug || vm.data.slug === slug) &&
        (!snapshotId || vm.data.snapshotId === snapshotId) &&
        metadata.every(([key, value]) => vm.metadata[key] === value),
    )
    .sort(compareOldestFirst);
  const count = (which: VmState) => matching.filter((vm) => vm.state === which).length;
  return jsonReply(200, {
    vms: matching.slice(offset, offset + limit).map(vmJson),
    totalCount: matching.length,
    runningCount: count("running"),
    startingCount: count("starting"),
    pausingCount: count("pausing"),
    pausedCount: count("paused"),
    stoppedCount: count("stopped"),
  });
}
