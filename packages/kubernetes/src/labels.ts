import { createHash } from "node:crypto";
import { invalidRequest, type Labels } from "@sandport/core";
import { ownerLabels } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";

/**
 * The prefix of the Kubernetes label each Sandport label becomes. A
 * Kubernetes label key is an optional DNS-subdomain prefix and a name of at
 * most 63 characters of `[A-Za-z0-9._-]` (alphanumeric at both ends); a
 * value is at most 63 such characters, or empty. Sandport's keys may hold
 * `/` anywhere and its values are up to 256 printable characters (any
 * script), so neither fits as it is.
 */
export const LABEL_PREFIX = "label.sandport.dev/";
/** The annotation that holds the labels themselves (JSON), reserved ones included. */
export const LABELS_ANNOTATION = "sandport.dev/labels";
/** Hex digits of each digest: 40 (160 bits) fits both a label name and a value. */
const DIGEST_LENGTH = 40;
/**
 * Kubernetes caps all of an object's annotations together at 256 KiB; the
 * labels' JSON is kept well under it (the adopted sandbox's annotations
 * share the object), which holds some 600 labels at Sandport's largest
 * keys and values, and thousands of ordinary ones.
 */
export const MAX_LABELS_JSON_BYTES = 128 * 1024;

/** What a claim carries for Sandport: Kubernetes labels (digests) and the annotation (the labels). */
export interface StoredLabels {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
}

/** The digest Kubernetes keeps for one label key or value: 40 hex digits of SHA-256. */
function digest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex").slice(0, DIGEST_LENGTH);
}

/** The Kubernetes label that stands for one Sandport label. */
export function kubernetesLabel(key: string, value: string): [string, string] {
  return [`${LABEL_PREFIX}${digest(key)}`, digest(value)];
}

/**
 * How a launch marks its claim: every label (the owner and the launch key
 * included) as a Kubernetes label `label.sandport.dev/<digest of key>:
 * <digest of value>`, which a label selector can match, and all of them as
 * JSON in the `sandport.dev/labels` annotation, which gives them back.
 * Any number of labels fits, up to 128 KiB of JSON (`INVALID_REQUEST` past it).
 */
export function encodeLabels(owner: string, labels: Labels | undefined, launchKey: string): StoredLabels {
  const all = ownerLabels(owner, labels, launchKey);
  const json = JSON.stringify(all);
  if (Buffer.byteLength(json) > MAX_LABELS_JSON_BYTES) {
    throw invalidRequest(
      `labels take ${Buffer.byteLength(json)} bytes as JSON; a claim holds at most ${MAX_LABELS_JSON_BYTES} (Kubernetes caps an object's annotations at 256 KiB)`,
      { field: "labels" },
      PROVIDER,
    );
  }
  return {
    labels: Object.fromEntries(Object.entries(all).map(([key, value]) => kubernetesLabel(key, value))),
    annotations: { [LABELS_ANNOTATION]: json },
  };
}

/**
 * The labels a claim carries, reserved ones included; `undefined` when it
 * carries none of ours. Each label of the annotation counts only when its
 * digest label is on the claim too: an annotation edited by hand does not
 * make a claim ours or change what a search finds.
 */
export function decodeLabels(
  labels: Readonly<Record<string, string>> | undefined,
  annotations: Readonly<Record<string, string>> | undefined,
): Labels | undefined {
  const json = annotations?.[LABELS_ANNOTATION];
  if (json === undefined) return undefined;
  let stored: unknown;
  try {
    stored = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof stored !== "object" || stored === null || Array.isArray(stored)) return undefined;
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(stored)) {
    if (typeof value !== "string") continue;
    const [name, expected] = kubernetesLabel(key, value);
    if (labels?.[name] === expected) kept[key] = value;
  }
  return Object.freeze(kept);
}

/** A label selector that matches claims carrying every label of `query` (reserved ones included). */
export function labelSelector(query: Labels): string {
  return Object.entries(query)
    .map(([key, value]) => kubernetesLabel(key, value).join("="))
    .sort()
    .join(",");
}
