/**
 * A small protobuf (proto3) wire codec for the few sandboxd messages: read a
 * message into its fields by number, write varint and length-delimited
 * fields. Hand-written so the emulator needs no protobuf or gRPC dependency.
 *
 * @module
 */

/** One decoded field value: a varint (as bigint, exact for int64) or the bytes of a length-delimited field. */
export type FieldValue =
  | { readonly wire: "varint"; readonly value: bigint }
  | { readonly wire: "bytes"; readonly value: Buffer };

/** A decoded message: every value of every field number, in order. */
export class ProtoMessage {
  constructor(readonly fields: ReadonlyMap<number, readonly FieldValue[]>) {}

  /** Decode a message; throws on malformed input. */
  static decode(bytes: Uint8Array): ProtoMessage {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const fields = new Map<number, FieldValue[]>();
    let offset = 0;
    while (offset < buffer.length) {
      const [key, afterKey] = readVarint(buffer, offset);
      offset = afterKey;
      const number = Number(key >> 3n);
      const wireType = Number(key & 7n);
      let value: FieldValue;
      if (wireType === 0) {
        const [varint, next] = readVarint(buffer, offset);
        value = { wire: "varint", value: varint };
        offset = next;
      } else if (wireType === 2) {
        const [length, next] = readVarint(buffer, offset);
        const end = next + Number(length);
        if (end > buffer.length) throw new Error("protobuf: truncated length-delimited field");
        value = { wire: "bytes", value: buffer.subarray(next, end) };
        offset = end;
      } else if (wireType === 1) {
        offset += 8;
        continue;
      } else if (wireType === 5) {
        offset += 4;
        continue;
      } else {
        throw new Error(`protobuf: unsupported wire type ${wireType}`);
      }
      if (number < 1) throw new Error("protobuf: field number 0");
      const list = fields.get(number) ?? [];
      list.push(value);
      fields.set(number, list);
    }
    if (offset !== buffer.length) throw new Error("protobuf: truncated message");
    return new ProtoMessage(fields);
  }

  /** True when the field is present. */
  has(number: number): boolean {
    return this.fields.has(number);
  }

  /** The last bytes value of a field (proto3: last one wins), or undefined. */
  bytes(number: number): Buffer | undefined {
    const last = this.fields.get(number)?.at(-1);
    return last?.wire === "bytes" ? last.value : undefined;
  }

  /** Every bytes value of a repeated field. */
  repeatedBytes(number: number): Buffer[] {
    return (this.fields.get(number) ?? []).flatMap((value) => (value.wire === "bytes" ? [value.value] : []));
  }

  /** A string field ("" when absent). */
  string(number: number): string {
    return this.bytes(number)?.toString("utf8") ?? "";
  }

  /** An embedded message, or undefined when absent. */
  message(number: number): ProtoMessage | undefined {
    const bytes = this.bytes(number);
    return bytes === undefined ? undefined : ProtoMessage.decode(bytes);
  }

  /** An int32 field (0 when absent), two's complement as protobuf encodes negatives. */
  int32(number: number): number {
    const last = this.fields.get(number)?.at(-1);
    return last?.wire === "varint" ? Number(BigInt.asIntN(32, last.value)) : 0;
  }

  /** A uint32 field (0 when absent). */
  uint32(number: number): number {
    const last = this.fields.get(number)?.at(-1);
    return last?.wire === "varint" ? Number(BigInt.asUintN(32, last.value)) : 0;
  }
}

/** Writes a message field by field. */
export class ProtoWriter {
  readonly #parts: Buffer[] = [];

  /** A varint field (int32 negatives as 10-byte two's complement, as protobuf does). Zero is written too. */
  varint(number: number, value: number | bigint): this {
    this.#parts.push(encodeVarint(BigInt(number) << 3n), encodeVarint(BigInt.asUintN(64, BigInt(value))));
    return this;
  }

  /** A length-delimited field: bytes, a string, or an embedded message. */
  bytes(number: number, value: Uint8Array | string | ProtoWriter): this {
    const payload =
      value instanceof ProtoWriter
        ? value.finish()
        : typeof value === "string"
          ? Buffer.from(value)
          : Buffer.from(value);
    this.#parts.push(encodeVarint((BigInt(number) << 3n) | 2n), encodeVarint(BigInt(payload.length)), payload);
    return this;
  }

  /** The encoded message. */
  finish(): Buffer {
    return Buffer.concat(this.#parts);
  }
}

function readVarint(buffer: Buffer, start: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  let offset = start;
  while (true) {
    if (offset >= buffer.length) throw new Error("protobuf: truncated varint");
    const byte = buffer[offset++]!;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, offset];
    shift += 7n;
    if (shift > 63n) throw new Error("protobuf: varint too long");
  }
}

function encodeVarint(value: bigint): Buffer {
  const bytes: number[] = [];
  let rest = value;
  do {
    let byte = Number(rest & 0x7fn);
    rest >>= 7n;
    if (rest !== 0n) byte |= 0x80;
    bytes.push(byte);
  } while (rest !== 0n);
  return Buffer.from(bytes);
}
