import { createHash } from "node:crypto";
import { unsupported } from "../errors/factories.js";
import type { Labels } from "../port/labels.js";

/**
 * What an adapter keeps about a snapshot whose provider stores nothing but a
 * name beside it (no labels or metadata): the owner, source, time and labels
 * all travel in the name ({@link encodeSnapshotName}).
 */
export interface SnapshotRecord {
  /** The runtime owner that took it. */
  readonly owner: string;
  /** The sandbox it was taken from. */
  readonly sourceId: string;
  /** When it was taken, ISO 8601. */
  readonly createdAt: string;
  /** The caller's labels. */
  readonly labels: Labels;
}

/** How one provider's snapshot names are bounded, and what to say when labels do not fit. */
export interface SnapshotNaming {
  /** The provider's name, for the error. */
  readonly provider: string;
  /** Longest name the provider takes (and the port's ids allow). */
  readonly maxLength: number;
  /** Why the labels travel in the name, for the error: what the provider does not keep. */
  readonly reason: string;
}

/** Every name this codec gives starts so (the `1` is the layout below); any other snapshot is not ours. */
const PREFIX = "sp1-";
/** Bytes of the owner's digest in a name: enough that two owners never meet by chance. */
const OWNER_BYTES = 5;
/** Bytes of the creation time (milliseconds since the epoch, big-endian). */
const TIME_BYTES = 6;
/** RFC 4648 base32, lower case: letters and digits any name alphabet accepts, unchanged by lower-casing. */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/**
 * The snapshot name that carries `record`: `sp1-`, then in base32 a digest
 * of the owner, the time, and the source id and each label's key and value,
 * NUL separated (labels are printable, ids too). `UNSUPPORTED`, before any
 * request, when the labels make it longer than `naming.maxLength`.
 */
export function encodeSnapshotName(record: SnapshotRecord, naming: SnapshotNaming): string {
  const time = Buffer.alloc(TIME_BYTES);
  time.writeUIntBE(Date.parse(record.createdAt), 0, TIME_BYTES);
  const text = [record.sourceId, ...Object.entries(record.labels).flat()].join("\0");
  const name = PREFIX + toBase32(Buffer.concat([ownerDigest(record.owner), time, Buffer.from(text, "utf8")]));
  if (name.length > naming.maxLength) {
    throw unsupported(
      naming.provider,
      "these snapshot labels",
      `${naming.reason}, so its owner, source and labels travel in its name, ` +
        `which would be ${name.length} characters (at most ${naming.maxLength}); use fewer or shorter labels`,
    );
  }
  return name;
}

/** The record in a snapshot name when `owner` gave it ({@link encodeSnapshotName}); `undefined` for any other name. */
export function decodeSnapshotName(name: string, owner: string): SnapshotRecord | undefined {
  if (!name.startsWith(PREFIX)) return undefined;
  const bytes = fromBase32(name.slice(PREFIX.length));
  if (bytes === undefined || bytes.length <= OWNER_BYTES + TIME_BYTES) return undefined;
  if (!bytes.subarray(0, OWNER_BYTES).equals(ownerDigest(owner))) return undefined;
  const createdAt = bytes.readUIntBE(OWNER_BYTES, TIME_BYTES);
  const text = bytes.subarray(OWNER_BYTES + TIME_BYTES).toString("utf8");
  const [sourceId = "", ...pairs] = text.split("\0");
  if (sourceId === "" || pairs.length % 2 !== 0) return undefined;
  const labels: Record<string, string> = {};
  for (let index = 0; index < pairs.length; index += 2) labels[pairs[index] ?? ""] = pairs[index + 1] ?? "";
  return { owner, sourceId, createdAt: new Date(createdAt).toISOString(), labels };
}

function ownerDigest(owner: string): Buffer {
  return createHash("sha256").update(owner, "utf8").digest().subarray(0, OWNER_BYTES);
}

function toBase32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

function fromBase32(text: string): Buffer | undefined {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = ALPHABET.indexOf(char);
    if (value < 0) return undefined;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bytes.push((buffer >>> (bits - 8)) & 255);
      bits -= 8;
    }
    buffer &= (1 << bits) - 1;
  }
  return Buffer.from(bytes);
}
