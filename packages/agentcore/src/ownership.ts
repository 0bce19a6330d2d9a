import { createHash } from "node:crypto";
import { invalidRequest, LAUNCH_KEY_LABEL, type Labels, OWNER_LABEL } from "@sandport/core";
import { ownerLabels } from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";

/** Start of every session name this adapter gives. */
const NAME_PREFIX = "sandport_";
/** Hex digits of each digest in a name. */
const DIGEST_LENGTH = 8;
/** Hex digits of the owner's digest in a name that carries the launch key itself. */
const KEYED_OWNER_DIGEST_LENGTH = 16;
/** What a launch key may hold (core's rule), all of it allowed in a session name. */
const LAUNCH_KEY_ALPHABET = /^[A-Za-z0-9._-]+$/;
/** The longest session name AgentCore takes. */
const MAX_NAME_LENGTH = 100;
/**
 * Labels a launch may carry: one digest each, after the prefix, the owner's
 * and the launch key's digests (`sandport_` + 8 + `_` + 8 + `_` = 27
 * characters; 73 left for digests of 8).
 */
export const MAX_LABELS = Math.floor((MAX_NAME_LENGTH - NAME_PREFIX.length - 2 * DIGEST_LENGTH - 2) / DIGEST_LENGTH);

/** What a session's name says about it: the digests it carries, or `undefined` for a name that is not ours. */
export interface NameMarks {
  /** The owner's digest: 8 hex digits, or 16 in a name that carries its launch key. */
  readonly owner: string;
  /** The launch key's digest (empty in a name that carries the key itself). */
  readonly launchKey: string;
  readonly labels: ReadonlySet<string>;
  /** The launch key itself, in the name of a launch without labels or env (which has no labels file). */
  readonly key?: string;
}

/**
 * How a session says it is ours. A session has no tags (they live on the
 * interpreter) and one free field, its `name` (1-100 characters, not unique),
 * which List and Get answer. So the name carries digests (8 hex digits of
 * SHA-256 each): `sandport_<owner>_<launch key><label><label>...`, one per
 * label as `key=value`; the labels themselves are kept in a file in the session
 * (`labels.json` in the state directory, written at launch) and read back for
 * a session whose name matches. The name decides ownership and narrows a
 * search without reading a file; the file gives the labels and is checked
 * again (a digest collision costs one read, never a wrong answer). A launch
 * without labels or env is named by {@link keyedSessionName} instead, and has
 * no labels file.
 */
export function sessionName(owner: string, labels: Labels | undefined, launchKey: string): string {
  const entries = Object.entries(labels ?? {});
  if (entries.length > MAX_LABELS) {
    throw invalidRequest(
      `an AgentCore session holds at most ${MAX_LABELS} labels: its name (100 characters) carries a digest of each`,
      { field: "labels" },
      PROVIDER,
    );
  }
  const pairs = entries.map(([key, value]) => labelDigest(key, value)).sort();
  return `${NAME_PREFIX}${digest(owner)}_${digest(launchKey)}${pairs.join("")}`;
}

/**
 * The name of a launch without labels or env, which then needs no labels
 * file: `sandport_<owner>_<launch key>`, the owner a digest of 16 hex digits,
 * the launch key itself. Its labels are the owner's and the launch key
 * (`labelsFromName`): a session this runtime's owner's digest marks is taken
 * as this owner's. `undefined` when the key does not fit the 100 characters
 * (a key of at most 74 does; the default, a UUID, is 36).
 */
export function keyedSessionName(owner: string, launchKey: string): string | undefined {
  const name = `${NAME_PREFIX}${digest(owner, KEYED_OWNER_DIGEST_LENGTH)}_${launchKey}`;
  return name.length <= MAX_NAME_LENGTH && LAUNCH_KEY_ALPHABET.test(launchKey) ? name : undefined;
}

/** The marks a session name carries; `undefined` when it is not a name this adapter gives. */
export function readName(name: string | undefined): NameMarks | undefined {
  if (name === undefined || !name.startsWith(NAME_PREFIX)) return undefined;
  const rest = name.slice(NAME_PREFIX.length);
  // Its owner digest is 16 digits and then `_`, where a digest name has `_` after 8: the two never mix.
  const keyed = new RegExp(`^([0-9a-f]{${KEYED_OWNER_DIGEST_LENGTH}})_(.+)$`).exec(rest);
  if (keyed && LAUNCH_KEY_ALPHABET.test(keyed[2] as string)) {
    return { owner: keyed[1] as string, launchKey: "", labels: new Set(), key: keyed[2] as string };
  }
  const match = new RegExp(
    `^([0-9a-f]{${DIGEST_LENGTH}})_([0-9a-f]{${DIGEST_LENGTH}})((?:[0-9a-f]{${DIGEST_LENGTH}})*)$`,
  ).exec(rest);
  if (!match) return undefined;
  const labels = new Set(match[3]?.match(new RegExp(`.{${DIGEST_LENGTH}}`, "g")) ?? []);
  return { owner: match[1] as string, launchKey: match[2] as string, labels };
}

/** True when a name's marks are `owner`'s (and, when given, carry every label of `query`). */
export function nameMatches(marks: NameMarks | undefined, owner: string, query: Labels = {}): boolean {
  if (marks === undefined || marks.owner !== digest(owner, marks.owner.length)) return false;
  return Object.entries(query).every(([key, value]) => {
    if (key === OWNER_LABEL) return value === owner;
    if (key === LAUNCH_KEY_LABEL)
      return marks.key !== undefined ? value === marks.key : marks.launchKey === digest(value);
    return marks.labels.has(labelDigest(key, value));
  });
}

/**
 * The labels of a session named by {@link keyedSessionName} for `owner`: the
 * owner and the launch key; `undefined` for any other name (its labels are in
 * its labels file) or another owner's.
 */
export function labelsFromName(marks: NameMarks, owner: string): Labels | undefined {
  if (marks.key === undefined || !nameMatches(marks, owner)) return undefined;
  return ownerLabels(owner, undefined, marks.key);
}

/** The labels file a launch writes: the caller's labels, the owner and the launch key. */
export function labelsFile(owner: string, labels: Labels | undefined, launchKey: string): string {
  return JSON.stringify(ownerLabels(owner, labels, launchKey));
}

/**
 * The labels a labels file holds, when they agree with the name's marks
 * (same owner, same launch key); `undefined` otherwise (not ours).
 */
export function readLabelsFile(text: string, marks: NameMarks): Labels | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const entries = Object.entries(parsed);
  if (!entries.every(([, value]) => typeof value === "string")) return undefined;
  const labels = Object.fromEntries(entries) as Record<string, string>;
  const owner = labels[OWNER_LABEL];
  const launchKey = labels[LAUNCH_KEY_LABEL];
  if (owner === undefined || launchKey === undefined) return undefined;
  if (digest(owner) !== marks.owner || digest(launchKey) !== marks.launchKey) return undefined;
  return labels;
}

function labelDigest(key: string, value: string): string {
  return digest(`${key}=${value}`);
}

function digest(text: string, length = DIGEST_LENGTH): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}
