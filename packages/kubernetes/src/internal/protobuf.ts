import { KubernetesMalformedAnswer } from "../errors.js";

/**
 * The protobuf wire format (proto3), as far as sandboxd's process service
 * needs it: varints (int32, uint32, enums), length-delimited fields
 * (strings, bytes, messages, map entries). Written by hand over the field
 * numbers of packages/sandboxd/spec/process/v1/process.proto: five small
 * messages do not need a code generator or a runtime dependency.
 */
export class ProtoWriter {
  readonly #parts: Uint8Array[] = [];

  /** A varint field (`int32` negatives take ten bytes, as protobuf encodes them). */
  varint(field: number, value: number): this {
    if (value === 0) return this;
    this.#tag(field, 0);
    this.#parts.push(encodeVarint(BigInt.asUintN(64, BigInt(value))));
    return this;
  }

  /** A length-delimited field: a string (UTF-8), bytes, or an encoded message. */
  bytes(field: number, value: Uint8Array | string): this {
    const data = typeof value === "string" ? new TextEncoder().encode(value) : value;
    this.#tag(field, 2);
    this.#parts.push(encodeVarint(BigInt(data.byteLength)), data);
    return this;
  }

  /** A length-delimited field that is written even when empty (a `oneof` member such as `Empty eof`). */
  present(field: number, value: Uint8Array): this {
    return this.bytes(field, value);
  }

  /** The encoded message. */
  finish(): Uint8Array {
    return Buffer.concat(this.#parts);
  }

  #tag(field: number, wireType: number): void {
    this.#parts.push(encodeVarint(BigInt((field << 3) | wireType)));
  }
}

function encodeVarint(value: bigint): Uint8Array {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7fn) {
    bytes.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  bytes.push(Number(rest));
  return Uint8Array.from(bytes);
}

/** One field of a decoded message: a varint's value, or a length-delimited field's bytes. */
export type ProtoField =
  | { readonly field: number; readonly varint: bigint }
  | { readonly field: number; readonly bytes: Uint8Array };

/** The fields of an encoded message, in order; unknown wire types (fixed32/64) are skipped as protobuf says. */
export function readFields(data: Uint8Array): ProtoField[] {
  const fields: ProtoField[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= data.byteLength || shift > 63n) throw new KubernetesMalformedAnswer("a protobuf varint was cut short");
      const byte = data[at++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  while (at < data.byteLength) {
    const tag = Number(varint());
    const field = tag >>> 3;
    const wireType = tag & 7;
    if (wireType === 0) fields.push({ field, varint: varint() });
    else if (wireType === 2) {
      const length = Number(varint());
      if (at + length > data.byteLength) throw new KubernetesMalformedAnswer("a protobuf field was cut short");
      fields.push({ field, bytes: data.subarray(at, at + length) });
      at += length;
    } else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else throw new KubernetesMalformedAnswer(`protobuf wire type ${wireType} is not one proto3 uses`);
  }
  return fields;
}

/** A varint field read as `int32` (two's complement, as protobuf sends negatives). */
export function int32(value: bigint): number {
  return Number(BigInt.asIntN(32, value));
}
