import { createHash } from "node:crypto";
import { invalidRequest, type Labels } from "@sandport/core";
import { metadataCodec } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";
import type { FreestyleVmData } from "./internal/sdk-types.js";

/** Longest metadata value Freestyle stores. */
const MAX_METADATA_VALUE = 63;
/** Most metadata entries a VM carries. */
const MAX_METADATA_ENTRIES = 64;

/**
 * How a VM is marked as ours: the caller's labels, `sandport.owner` and
 * `sandport.launch-key` as VM metadata (`metadataCodec`), and a slug under the
 * runtime's name prefix, derived from the owner and the launch key. The slug
 * makes a create idempotent (a second create with the same launch key is
 * refused as `SLUG_TAKEN`) and finds what a lost create made with one
 * `GET /v5/vms/{slug}`. A VM lacking either mark is foreign.
 */
export function slugFor(namePrefix: string, owner: string, launchKey: string): string {
  const digest = createHash("sha256").update(`${owner}\n${launchKey}`).digest("hex").slice(0, 32);
  return `${namePrefix}-${digest}`;
}

/**
 * The metadata a launch stores. Refuses (`INVALID_REQUEST`, before any
 * request) what Freestyle cannot store: an empty value, a value over 63
 * characters, more than 64 entries.
 */
export function launchMetadata(owner: string, labels: Labels | undefined, launchKey: string): Record<string, string> {
  const metadata = { ...metadataCodec.encode(owner, labels, launchKey) };
  const entries = Object.entries(metadata);
  if (entries.length > MAX_METADATA_ENTRIES) {
    throw invalidRequest(
      `a Freestyle VM holds at most ${MAX_METADATA_ENTRIES} metadata entries: ${MAX_METADATA_ENTRIES - 2} labels besides the owner and the launch key`,
      { field: "labels" },
      PROVIDER,
    );
  }
  for (const [key, value] of entries) {
    if (!storable(value)) {
      throw invalidRequest(
        `label ${JSON.stringify(key)} must have a value of 1-${MAX_METADATA_VALUE} characters (Freestyle's metadata limit)`,
        { field: "labels", key },
        PROVIDER,
      );
    }
  }
  return metadata;
}

/**
 * The labels of a VM that may be ours: its metadata (owner marker included)
 * when its slug is under our name prefix, else none (so it is foreign).
 */
export function labelsOf(vm: FreestyleVmData, namePrefix: string): Readonly<Record<string, string>> | undefined {
  return typeof vm.slug === "string" && vm.slug.startsWith(`${namePrefix}-`) ? vm.metadata : undefined;
}

/**
 * The list API's `metadata` filter for a label query (`key:value,...`), or
 * `undefined` when some value can never be stored, so nothing can match.
 * Values containing a comma cannot be written in the filter: they are left
 * out of it and matched here, as every result is.
 */
export function metadataFilter(query: Labels): string | undefined {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (!storable(value)) return undefined;
    if (!value.includes(",")) pairs.push(`${key}:${value}`);
  }
  return pairs.join(",");
}

function storable(value: string): boolean {
  return value.length > 0 && value.length <= MAX_METADATA_VALUE;
}
