/**
 * The agent protocol's framing (generation 7), as agentd speaks it over the
 * cloud relay: every frame is `[length u32 BE][id u32 BE][flags u8][body]`,
 * where `length` counts the id, flags and body, and the body is the CBOR map
 * `{ v, t, p }` whose `p` is a byte string holding the CBOR payload.
 *
 * @module
 */

import type { Decoder, Encoder } from "cbor-x";
import type { CborLibrary } from "./libraries.js";

/** Protocol generation the emulated agent reports in every message. */
export const PROTOCOL_VERSION = 7;

/** Last message of a session. */
export const FLAG_TERMINAL = 0b001;
/** First message of a session (a request). */
export const FLAG_SESSION_START = 0b010;
/** The agent is shutting down. */
export const FLAG_SHUTDOWN = 0b100;

/** Largest frame either side may send (4 MiB), `length` prefix excluded. */
export const MAX_FRAME_SIZE = 4 * 1024 * 1024;
/** Largest chunk of file data per `core.fs.data` message (3 MiB), as agentd sends them. */
export const FS_CHUNK_SIZE = 3 * 1024 * 1024;

const HEADER_SIZE = 5;

/** One decoded message: its correlation id, flags, type and decoded payload. */
export interface AgentMessage {
  readonly id: number;
  readonly flags: number;
  /** Message type, e.g. `"core.exec.request"`. */
  readonly type: string;
  /** The payload, decoded from its CBOR byte string. */
  readonly payload: unknown;
}

/** A frame the peer sent that cannot be decoded; the connection is beyond repair. */
export class AgentFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AgentFrameError";
  }
}

/** Encodes messages into frames and decodes them back. */
export class AgentCodec {
  readonly #encoder: Encoder;
  readonly #decoder: Decoder;

  constructor(cbor: CborLibrary) {
    // Plain RFC 8949 maps, byte strings and text: the Rust side (ciborium +
    // serde) understands neither cbor-x records nor tagged typed arrays.
    this.#encoder = new cbor.Encoder({ useRecords: false, tagUint8Array: false, variableMapSize: true });
    this.#decoder = new cbor.Decoder({ useRecords: false, mapsAsObjects: true });
  }

  /** Encode one message as a frame. */
  encode(id: number, flags: number, type: string, payload: unknown): Buffer {
    const encoder = this.#encoder;
    const body = encoder.encode({ v: PROTOCOL_VERSION, t: type, p: encoder.encode(payload) });
    const frame = Buffer.allocUnsafe(4 + HEADER_SIZE + body.length);
    frame.writeUInt32BE(HEADER_SIZE + body.length, 0);
    frame.writeUInt32BE(id, 4);
    frame.writeUInt8(flags, 8);
    body.copy(frame, 4 + HEADER_SIZE);
    return frame;
  }

  /** Decode a message body (the CBOR after the frame header). Throws {@link AgentFrameError}. */
  decode(id: number, flags: number, body: Buffer): AgentMessage {
    const decoder = this.#decoder;
    let envelope: unknown;
    try {
      envelope = decoder.decode(body);
    } catch (error) {
      throw new AgentFrameError(`undecodable message body: ${error instanceof Error ? error.message : error}`);
    }
    const fields = (typeof envelope === "object" && envelope !== null ? envelope : {}) as Record<string, unknown>;
    if (typeof fields.t !== "string" || !(fields.p instanceof Uint8Array)) {
      throw new AgentFrameError("a message needs a type `t` and a byte-string payload `p`");
    }
    let payload: unknown;
    try {
      payload = fields.p.length === 0 ? undefined : decoder.decode(fields.p);
    } catch (error) {
      throw new AgentFrameError(`undecodable ${fields.t} payload: ${error instanceof Error ? error.message : error}`);
    }
    return { id, flags, type: fields.t, payload };
  }
}

/** Splits a byte stream into messages; frames may arrive split or several at once. */
export class FrameReader {
  readonly #codec: AgentCodec;
  #buffer: Buffer = Buffer.alloc(0);

  constructor(codec: AgentCodec) {
    this.#codec = codec;
  }

  /** Add received bytes and return every message now complete. Throws {@link AgentFrameError}. */
  push(chunk: Buffer): AgentMessage[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const messages: AgentMessage[] = [];
    while (this.#buffer.length >= 4) {
      const length = this.#buffer.readUInt32BE(0);
      if (length > MAX_FRAME_SIZE) throw new AgentFrameError(`frame of ${length} bytes exceeds ${MAX_FRAME_SIZE}`);
      if (length < HEADER_SIZE) throw new AgentFrameError(`frame of ${length} bytes is shorter than its header`);
      if (this.#buffer.length < 4 + length) break;
      const id = this.#buffer.readUInt32BE(4);
      const flags = this.#buffer.readUInt8(8);
      const body = this.#buffer.subarray(4 + HEADER_SIZE, 4 + length);
      this.#buffer = this.#buffer.subarray(4 + length);
      messages.push(this.#codec.decode(id, flags, body));
    }
    return messages;
  }
}
