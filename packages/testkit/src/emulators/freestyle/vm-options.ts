/**
 * The body of `POST /v5/vms` and `PATCH /v5/vms/{id}`, checked as the API
 * documents it: metadata (at most 64 entries, keys and values at most 63
 * characters), slugs (1-63 of `[a-z0-9-]`, no leading, trailing or repeated
 * hyphen), limits in seconds (`-1` or `null` for none) and a required
 * `firewall`. Fields the emulator cannot honour are refused with
 * `NOT_EMULATED`, never dropped.
 *
 * @module
 */

import { parseNetworkRule } from "@sandport/core";
import { randomToken } from "../harness/sandbox-registry.js";
import { ApiError, badRequest, notEmulated } from "./api.js";
import type { CreateVmInput, FirewallRuleRecord, VmLimits } from "./context.js";
import { refusePublishedPorts } from "./published-ports.js";

/** The platform's base snapshots (`BaseSnapshotId` in the SDK). */
export const BASE_SNAPSHOTS = [
  "freestyle/ubuntu-sm",
  "freestyle/ubuntu",
  "freestyle/ubuntu-lg",
  "freestyle/ubuntu-xl",
  "freestyle/ubuntu-2xl",
  "freestyle/ubuntu-3xl",
  "freestyle/busybox",
] as const;

/** The snapshot a VM boots from when create names none. */
export const DEFAULT_SNAPSHOT = "freestyle/ubuntu";

const MAX_METADATA_ENTRIES = 64;
const MAX_METADATA_LENGTH = 63;
const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const LIMIT_FIELDS = [
  "idleTimeoutSeconds",
  "autoDeleteSeconds",
  "ttlSeconds",
  "maxRunSeconds",
  "maxRunTotalSeconds",
] as const satisfies readonly (keyof VmLimits)[];
const IDENTITY_FIELDS = ["vmId", "vpcId", "tunnelId", "cidr", "public"] as const;

/** A create request, less what the emulator decides (ownership) and `/v1`'s workdir. */
export type CreateVmRequest = Omit<CreateVmInput, "foreign" | "legacyWorkdir">;

/** Parse a create body. Throws `ApiError`. */
export function parseCreateVm(
  body: Record<string, unknown>,
  knownSnapshot: (idOrSlug: string) => boolean,
): CreateVmRequest {
  for (const field of ["vpcs", "networks"] as const) {
    const value = body[field];
    if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0)) {
      throw notEmulated(`${field}: private networks`);
    }
  }
  if (body.placement !== undefined && body.placement !== null) throw notEmulated("placement (anti-affinity)");
  refusePublishedPorts(body.tls);
  const snapshotId = optionalString(body, "snapshotId") ?? DEFAULT_SNAPSHOT;
  if (!(BASE_SNAPSHOTS as readonly string[]).includes(snapshotId) && !knownSnapshot(snapshotId)) {
    throw new ApiError(404, "SNAPSHOT_NOT_FOUND", `snapshot not found: ${snapshotId}`);
  }
  const slug = optionalString(body, "slug") ?? null;
  if (slug !== null) checkSlug(slug);
  const reassignSlug = optionalBoolean(body, "reassignSlug") ?? false;
  if (reassignSlug && slug === null) throw badRequest("reassignSlug requires slug");
  const limits = {} as VmLimits;
  for (const field of LIMIT_FIELDS) limits[field] = parseLimit(body, field) ?? null;
  const { rules, publicEgress, egressRanges } = parseFirewall(body.firewall);
  return {
    slug,
    reassignSlug,
    displayName: optionalString(body, "displayName") ?? null,
    snapshotId,
    metadata: parseMetadata(body.metadata ?? {}),
    limits,
    automaticRestart: optionalBoolean(body, "automaticRestart") ?? true,
    firewallRules: rules,
    publicEgress,
    egressRanges,
  };
}

/** What `PATCH /v5/vms/{id}` changes; absent fields stay as they are. */
export interface UpdateVmRequest {
  /** New slug, `null` to clear it. */
  readonly slug: string | null | undefined;
  readonly reassignSlug: boolean;
  readonly displayName: string | null | undefined;
  readonly limits: Partial<VmLimits>;
  readonly automaticRestart: boolean | undefined;
  /** Entries to merge; an empty value removes the key. */
  readonly metadata: Record<string, string> | undefined;
}

/** Parse an update body. Throws `ApiError`. */
export function parseUpdateVm(body: Record<string, unknown>): UpdateVmRequest {
  const slugValue = optionalString(body, "slug");
  const slug = slugValue === undefined ? undefined : slugValue === "" ? null : slugValue;
  if (slug) checkSlug(slug);
  const reassignSlug = optionalBoolean(body, "reassignSlug") ?? false;
  if (reassignSlug && !slug) throw badRequest("reassignSlug requires slug");
  const displayNameValue = optionalString(body, "displayName");
  const limits: Partial<VmLimits> = {};
  for (const field of LIMIT_FIELDS) {
    const value = parseLimit(body, field);
    if (value !== undefined) limits[field] = value;
  }
  let metadata: Record<string, string> | undefined;
  if (body.metadata !== undefined && body.metadata !== null) {
    metadata = parseMetadata(body.metadata, { allowEmptyValues: true });
  }
  return {
    slug,
    reassignSlug,
    displayName: displayNameValue === undefined ? undefined : displayNameValue === "" ? null : displayNameValue,
    limits,
    automaticRestart: optionalBoolean(body, "automaticRestart"),
    metadata,
  };
}

/** Check metadata entry count and lengths after a merge. */
export function checkMetadataSize(metadata: Record<string, string>): void {
  if (Object.keys(metadata).length > MAX_METADATA_ENTRIES) {
    throw badRequest(`metadata may have at most ${MAX_METADATA_ENTRIES} entries`);
  }
}

/** A VM's or a snapshot's slug: 1-63 characters of `[a-z0-9-]`, no leading, trailing or repeated hyphen. */
export function checkSlug(slug: string): void {
  if (slug.length > 63 || !SLUG_PATTERN.test(slug)) {
    throw badRequest(
      `slug ${JSON.stringify(slug)} must be 1-63 characters of [a-z0-9-] without leading, trailing or repeated hyphens`,
    );
  }
}

function parseMetadata(value: unknown, options: { allowEmptyValues?: boolean } = {}): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest("metadata must be an object of strings");
  }
  const metadata: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string") throw badRequest(`metadata.${key} must be a string`);
    if (key === "" || key.length > MAX_METADATA_LENGTH) {
      throw badRequest(`metadata keys must be 1-${MAX_METADATA_LENGTH} characters: ${JSON.stringify(key)}`);
    }
    if (entry.length > MAX_METADATA_LENGTH) {
      throw badRequest(`metadata.${key} is longer than ${MAX_METADATA_LENGTH} characters`);
    }
    if (entry === "" && !options.allowEmptyValues) throw badRequest(`metadata.${key} must not be empty`);
    metadata[key] = entry;
  }
  checkMetadataSize(metadata);
  return metadata;
}

/**
 * The rules of a create's `firewall`, whether one lets the VM reach the public
 * Internet, and the ranges outbound rules let it reach (`{ source: {},
 * destination: { cidr } }`). A range must be canonical (the SDK leaves that to
 * the server); an outbound range narrowed to a port or protocol is not
 * emulated (the backend's allow list has no port for a range).
 */
function parseFirewall(value: unknown): {
  rules: FirewallRuleRecord[];
  publicEgress: boolean;
  egressRanges: string[];
} {
  if (typeof value !== "object" || value === null || !Array.isArray((value as { rules?: unknown }).rules)) {
    throw badRequest("firewall is required: { rules: [...] } (an empty list is a VM with no network access)");
  }
  const now = new Date().toISOString();
  let publicEgress = false;
  const egressRanges: string[] = [];
  const rules = (value as { rules: unknown[] }).rules.map((rule, index): FirewallRuleRecord => {
    const path = `firewall.rules[${index}]`;
    if (typeof rule !== "object" || rule === null) throw badRequest(`${path} must be an object`);
    const { action, source, destination, description } = rule as Record<string, unknown>;
    if (action !== "allow") throw badRequest(`${path}.action must be "allow"`);
    for (const [side, endpoint] of [
      ["source", source],
      ["destination", destination],
    ] as const) {
      if (typeof endpoint !== "object" || endpoint === null || Array.isArray(endpoint)) {
        throw badRequest(`${path}.${side} must be an object`);
      }
    }
    if (description !== undefined && description !== null && typeof description !== "string") {
      throw badRequest(`${path}.description must be a string`);
    }
    const from = source as Record<string, unknown>;
    const to = destination as Record<string, unknown>;
    // Inside a create, an endpoint with no identity is the VM being created.
    const outbound = !IDENTITY_FIELDS.some((field) => from[field] !== undefined);
    if (to.cidr !== undefined) checkCidr(`${path}.destination.cidr`, to.cidr);
    if (outbound && to.public === true) publicEgress = true;
    if (outbound && typeof to.cidr === "string") {
      if (to.port !== undefined || to.protocol !== undefined) {
        throw notEmulated(`${path}: an outbound range narrowed to a port or protocol`);
      }
      egressRanges.push(to.cidr);
    }
    return {
      id: `fwr_${randomToken(20)}`,
      action: "allow",
      source: from,
      destination: to,
      description: typeof description === "string" ? description : null,
      createdAt: now,
    };
  });
  return { rules, publicEgress, egressRanges };
}

/** A range as the server keeps it: an IPv4 or IPv6 `network/prefix` with no bits set below the prefix. */
function checkCidr(path: string, value: unknown): void {
  if (typeof value !== "string" || !value.includes("/")) {
    throw badRequest(`${path} must be a CIDR: address/prefix, e.g. 203.0.113.0/24 or 2001:db8::/32`);
  }
  try {
    if (parseNetworkRule(value).kind === "cidr") return;
  } catch {
    // Reported below.
  }
  throw badRequest(`${path} \`${value}\` is not a canonical CIDR (an address, a prefix length, host bits zero)`);
}

/** A limit in seconds: `undefined` when absent, `null` for none (`-1` or `null`). */
export function parseLimit(body: Record<string, unknown>, field: keyof VmLimits): number | null | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (value === null || value === -1) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw badRequest(`${field} must be a non-negative integer number of seconds, or -1 for none`);
  }
  return value;
}

export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw badRequest(`${field} must be a string`);
  return value;
}

function optionalBoolean(body: Record<string, unknown>, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw badRequest(`${field} must be a boolean`);
  return value;
}
