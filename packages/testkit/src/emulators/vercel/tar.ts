/**
 * A small reader for the tar archives the SDK uploads (tar-stream's ustar
 * output, with pax or GNU long names), so the emulator needs no dependency.
 *
 * @module
 */

/** One archive member. */
export interface TarEntry {
  /** Path as archived (ustar prefix joined, pax `path` / GNU long name applied). */
  readonly name: string;
  readonly kind: "file" | "directory";
  /** Permission bits from the header (`0o7777` mask). */
  readonly mode: number;
  readonly content: Uint8Array;
}

/** The archive is malformed or holds a member kind the emulator does not write (links, devices). */
export class TarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TarFormatError";
  }
}

const BLOCK = 512;

/** Every file and directory member of an uncompressed tar archive, in order. */
export function readTar(archive: Uint8Array): TarEntry[] {
  const bytes = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= bytes.length) {
    const header = bytes.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    verifyChecksum(header, offset);
    const size = readSize(header);
    const start = offset + BLOCK;
    if (start + size > bytes.length)
      throw new TarFormatError(`member at byte ${offset} runs past the end of the archive`);
    const content = bytes.subarray(start, start + size);
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
    const type = String.fromCharCode(header[156]!);
    if (type === "x") {
      longName = paxPath(content) ?? longName;
      continue;
    }
    if (type === "L") {
      longName = cString(content, 0, content.length);
      continue;
    }
    if (type === "g") continue;
    const name = longName ?? headerName(header);
    longName = undefined;
    const mode = readOctal(header, 100, 8) & 0o7777;
    if (type === "0" || type === "\0" || type === "7") {
      entries.push({ name, kind: "file", mode, content: new Uint8Array(content) });
    } else if (type === "5") {
      entries.push({ name, kind: "directory", mode, content: new Uint8Array() });
    } else {
      throw new TarFormatError(
        `member ${JSON.stringify(name)} has type ${JSON.stringify(type)}: only files and directories are written`,
      );
    }
  }
  return entries;
}

function headerName(header: Buffer): string {
  const name = cString(header, 0, 100);
  const magic = header.subarray(257, 262).toString("latin1");
  const prefix = magic === "ustar" ? cString(header, 345, 155) : "";
  return prefix === "" ? name : `${prefix}/${name}`;
}

function cString(bytes: Buffer, start: number, length: number): string {
  const field = bytes.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString("utf8");
}

function readOctal(header: Buffer, start: number, length: number): number {
  const text = cString(header, start, length).trim();
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError(`bad octal field ${JSON.stringify(text)}`);
  return Number.parseInt(text, 8);
}

function readSize(header: Buffer): number {
  // Sizes past 8 GiB use base-256: the high bit of the first byte is set.
  if ((header[124]! & 0x80) === 0) return readOctal(header, 124, 12);
  let size = header[124]! & 0x7f;
  for (let index = 125; index < 136; index++) size = size * 256 + header[index]!;
  return size;
}

function verifyChecksum(header: Buffer, offset: number): void {
  const expected = readOctal(header, 148, 8);
  let sum = 0;
  for (let index = 0; index < BLOCK; index++) sum += index >= 148 && index < 156 ? 0x20 : header[index]!;
  if (sum !== expected) throw new TarFormatError(`bad header checksum at byte ${offset}`);
}

/** The `path` record of a pax extended header, if any (records are `<length> <key>=<value>\n`). */
function paxPath(content: Buffer): string | undefined {
  let path: string | undefined;
  let position = 0;
  while (position < content.length) {
    const space = content.indexOf(0x20, position);
    if (space === -1) break;
    const length = Number.parseInt(content.subarray(position, space).toString("latin1"), 10);
    if (!Number.isInteger(length) || length <= 0) throw new TarFormatError("malformed pax header");
    const record = content.subarray(space + 1, position + length - 1).toString("utf8");
    const equals = record.indexOf("=");
    if (equals !== -1 && record.slice(0, equals) === "path") path = record.slice(equals + 1);
    position += length;
  }
  return path;
}
