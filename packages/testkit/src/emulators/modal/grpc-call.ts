import type * as Grpc from "@grpc/grpc-js";
import type { RequestLog } from "../harness/request-log.js";
import { GRPC_CODES, type GrpcError, httpStatusOf } from "./grpc-status.js";
import type { AcceptedConnection } from "./listeners.js";
import type { ModalRequestRecord } from "./request-record.js";
import type { MessageCodec } from "./wire-definitions.js";

/** A protobuf message as proto3 JSON (camelCase field names, enums by name, bytes in base64). */
export type WireJson = Record<string, unknown>;

/** What a handler knows about its call. */
export interface GrpcCallContext {
  /** `rpc <service>/<method>`. */
  readonly route: string;
  /** One metadata value (name in lower case); binary values in base64. */
  metadata(name: string): string | undefined;
  /** Aborted when the client cancels, its connection goes away, the deadline passes or the emulator stops. */
  readonly signal: AbortSignal;
  /** The client's deadline (epoch milliseconds), if it set one. */
  readonly deadline: number | undefined;
}

/** Any grpc-js server call, by the shapes the emulator serves. */
export type AnyServerCall =
  | Grpc.ServerUnaryCall<Buffer, Buffer>
  | Grpc.ServerWritableStream<Buffer, Buffer>
  | Grpc.ServerReadableStream<Buffer, Buffer>;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * One call in progress: its request record, the connection it arrived on,
 * its abort signal (client gone, deadline, emulator stopping), and the three
 * ways it can end: answered with a status (`finish`), with its connection
 * destroyed (`drop`), or given up alone after its client left (`abandon`).
 */
export class ActiveCall {
  readonly record: Mutable<ModalRequestRecord>;
  readonly connection: AcceptedConnection<string> | undefined;
  readonly context: GrpcCallContext;
  readonly #abort = new AbortController();
  readonly #call: AnyServerCall;
  readonly #callback: Grpc.sendUnaryData<Buffer> | undefined;
  readonly #statusOf: (error: GrpcError) => Partial<Grpc.StatusObject>;
  readonly #timer: NodeJS.Timeout | undefined;
  readonly #onGone = () => this.#abort.abort(new Error("the call was cancelled or its connection closed"));

  constructor(options: {
    readonly path: string;
    readonly call: AnyServerCall;
    readonly callback: Grpc.sendUnaryData<Buffer> | undefined;
    readonly log: RequestLog;
    readonly connection: AcceptedConnection<string> | undefined;
    readonly statusOf: (error: GrpcError) => Partial<Grpc.StatusObject>;
  }) {
    const { path, call, connection } = options;
    const route = `rpc ${path.slice(1)}`;
    const metadata = flattenMetadata(call.metadata);
    this.record = Object.assign(options.log.add("POST", path, route, metadata), { grpcStatus: undefined });
    this.connection = connection;
    this.#call = call;
    this.#callback = options.callback;
    this.#statusOf = options.statusOf;
    (call as Grpc.ServerUnaryCall<Buffer, Buffer>).on("cancelled", this.#onGone);
    connection?.socket.once("close", this.#onGone);
    const deadline = deadlineOf(call.getDeadline());
    this.#timer = deadline === undefined ? undefined : setTimeout(this.#onGone, Math.max(0, deadline - Date.now()));
    this.context = { route, metadata: (name) => metadata[name.toLowerCase()], signal: this.#abort.signal, deadline };
  }

  /** Aborted when the client goes away, the deadline passes or the emulator stops. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Abort whatever the handler waits on. */
  abort(reason: unknown): void {
    this.#abort.abort(reason);
  }

  /** End the call with no answer: destroy its connection (every call on it fails alike). */
  drop(): void {
    this.record.status = 0;
    this.connection?.socket.destroy();
  }

  /**
   * End a call whose client went away (its deadline passed, it cancelled) with
   * no answer, leaving its connection and the other calls on it alone, as a
   * gRPC server does on the stream's reset.
   */
  abandon(): void {
    this.record.status = 0;
  }

  /** Answer: OK (with `answer` for a unary or client-stream call) or the error's status. */
  finish(error: GrpcError | undefined, answer?: Buffer): void {
    const code = error?.code ?? "OK";
    this.record.status = httpStatusOf(code);
    this.record.grpcStatus = GRPC_CODES[code];
    const status = error ? this.#statusOf(error) : undefined;
    try {
      if (this.#callback) this.#callback(status ?? null, answer);
      else if (status) (this.#call as Grpc.ServerWritableStream<Buffer, Buffer>).emit("error", status);
      else (this.#call as Grpc.ServerWritableStream<Buffer, Buffer>).end();
    } catch {
      // The call is already gone; there is no one left to answer.
    }
  }

  /** Release the timers and listeners. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.connection?.socket.off("close", this.#onGone);
  }
}

/** Decode a request into proto3 JSON; a malformed one is `INVALID_ARGUMENT`. */
export function decode(type: MessageCodec, bytes: Buffer, invalid: (message: string) => Error): WireJson {
  try {
    return type.toJSON(type.decode(bytes)) as WireJson;
  } catch (error) {
    throw invalid(`could not decode the request: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Encode an answer given as proto3 JSON. */
export function encode(type: MessageCodec, message: WireJson): Buffer {
  return Buffer.from(type.encode(type.fromJSON(message)).finish());
}

function flattenMetadata(metadata: Grpc.Metadata): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(metadata.getMap())) {
    flat[name.toLowerCase()] = typeof value === "string" ? value : Buffer.from(value).toString("base64");
  }
  return flat;
}

function deadlineOf(deadline: Grpc.Deadline): number | undefined {
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(at) ? at : undefined;
}
