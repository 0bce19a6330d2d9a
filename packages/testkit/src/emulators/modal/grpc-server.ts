/**
 * A gRPC server (`@grpc/grpc-js`) on 127.0.0.1 with the harness's request
 * accounting and fault injection, serving ts-proto service definitions with
 * handlers that see requests and answers as proto3 JSON.
 *
 * Each listener is a plain TCP server on its own ephemeral port whose
 * connections are handed to grpc-js (`createConnectionInjector`), so the
 * emulator owns every socket and can drop the one a call arrived on. Every
 * method of a listener's service is registered: a method without a handler is
 * answered `UNIMPLEMENTED` and logged in `unknownRoutes`, so nothing the SDK
 * calls goes unnoticed (a path outside the service definitions is answered by
 * grpc-js itself and is not logged).
 *
 * @module
 */

import type * as Grpc from "@grpc/grpc-js";
import { FaultInjector } from "../harness/faults.js";
import { delay } from "../harness/http-server.js";
import { RequestLog } from "../harness/request-log.js";
import { codeForHttpStatus, GRPC_CODES, GrpcError, httpStatusOf, messageOf, toGrpcError } from "./grpc-status.js";
import { Listeners } from "./listeners.js";
import type { ModalRequestRecord } from "./request-record.js";
import type { MessageCodec, WireMethod, WireService } from "./wire-definitions.js";

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

/** A handler for one method, by call shape. */
export type MethodHandler =
  | { readonly kind: "unary"; readonly handle: (request: WireJson, call: GrpcCallContext) => Promise<WireJson> }
  | {
      readonly kind: "serverStream";
      readonly handle: (
        request: WireJson,
        call: GrpcCallContext,
        send: (message: WireJson) => Promise<void>,
      ) => Promise<void>;
    }
  | {
      readonly kind: "clientStream";
      readonly handle: (requests: AsyncIterable<WireJson>, call: GrpcCallContext) => Promise<WireJson>;
    };

/** Runs before every handled call of a listener (authentication); throws a {@link GrpcError} to refuse it. */
export type CallGuard = (call: GrpcCallContext) => void;

/** One listener to open: a name, the service it serves, and its guard. */
export interface ListenerSpec<Name extends string> {
  readonly name: Name;
  readonly service: WireService;
  readonly guard: CallGuard;
}

/** Builds `grpc-status-details-bin` for a status that carries a retry policy. */
export type RetryDetails = (code: number, message: string, retryAfterSeconds: number) => Uint8Array;

interface Registered {
  readonly method: WireMethod;
  readonly listener: string;
  handler: MethodHandler | undefined;
}

/** The gRPC server of one emulator. */
export class GrpcEmulatorServer<Name extends string> {
  readonly log = new RequestLog();
  readonly faults = new FaultInjector();
  readonly #grpc: typeof Grpc;
  readonly #server: Grpc.Server;
  readonly #listeners: Listeners<Name>;
  readonly #guards = new Map<string, CallGuard>();
  readonly #methods = new Map<string, Registered>();
  readonly #inflight = new Set<AbortController>();
  readonly #retryDetails: RetryDetails;
  #stopping: Promise<void> | undefined;

  private constructor(grpc: typeof Grpc, listeners: Listeners<Name>, server: Grpc.Server, retryDetails: RetryDetails) {
    this.#grpc = grpc;
    this.#listeners = listeners;
    this.#server = server;
    this.#retryDetails = retryDetails;
  }

  /** Open one TCP listener per spec on 127.0.0.1 and register every method of its service. */
  static async start<Name extends string>(
    grpc: typeof Grpc,
    specs: readonly ListenerSpec<Name>[],
    retryDetails: RetryDetails,
  ): Promise<GrpcEmulatorServer<Name>> {
    const server = new grpc.Server();
    const listeners = await Listeners.open(
      specs.map((spec) => spec.name),
      server.createConnectionInjector(grpc.ServerCredentials.createInsecure()),
    );
    const emulator = new GrpcEmulatorServer(grpc, listeners, server, retryDetails);
    for (const spec of specs) {
      emulator.#guards.set(spec.name, spec.guard);
      for (const method of Object.values(spec.service.methods)) emulator.#register(spec.name, spec.service, method);
    }
    return emulator;
  }

  /** Port of a listener on 127.0.0.1. */
  port(name: Name): number {
    return this.#listeners.port(name);
  }

  /** Handle `method` of the service served on `listener`. */
  implement(listener: Name, service: WireService, method: string, handler: MethodHandler): void {
    const registered = this.#methods.get(pathOf(service, method));
    if (!registered || registered.listener !== listener)
      throw new Error(`${service.fullName}/${method} is not served on ${listener}`);
    const kind = registered.method.requestStream
      ? "clientStream"
      : registered.method.responseStream
        ? "serverStream"
        : "unary";
    if (kind !== handler.kind)
      throw new Error(`${service.fullName}/${method} is a ${kind} method, not ${handler.kind}`);
    registered.handler = handler;
  }

  /** Record a feature a known route was asked for but the emulator does not have (logged in `unknownRoutes`). */
  logNotEmulated(route: string, feature: string): void {
    this.log.addUnknown("POST", `/${route.replace(/^rpc /, "")} (${feature})`);
  }

  get stopped(): boolean {
    return this.#stopping !== undefined;
  }

  /** Abort every call, destroy every connection and stop listening. Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      for (const controller of this.#inflight) controller.abort(new Error("emulator stopped"));
      await this.#listeners.close();
      this.#server.forceShutdown();
    })();
    return this.#stopping;
  }

  #register(listener: Name, service: WireService, method: WireMethod): void {
    const path = pathOf(service, method.name);
    const registered: Registered = { method, listener, handler: undefined };
    this.#methods.set(path, registered);
    const identity = (value: Buffer) => value;
    const type = method.requestStream
      ? method.responseStream
        ? "bidi"
        : "clientStream"
      : method.responseStream
        ? "serverStream"
        : "unary";
    const func = (
      call:
        | Grpc.ServerUnaryCall<Buffer, Buffer>
        | Grpc.ServerWritableStream<Buffer, Buffer>
        | Grpc.ServerReadableStream<Buffer, Buffer>,
      callback?: Grpc.sendUnaryData<Buffer>,
    ) => {
      void this.#serve(path, registered, call, callback);
    };
    this.#server.register(path, func as Grpc.handleUnaryCall<Buffer, Buffer>, identity, identity, type);
  }

  async #serve(
    path: string,
    registered: Registered,
    call:
      | Grpc.ServerUnaryCall<Buffer, Buffer>
      | Grpc.ServerWritableStream<Buffer, Buffer>
      | Grpc.ServerReadableStream<Buffer, Buffer>,
    callback: Grpc.sendUnaryData<Buffer> | undefined,
  ): Promise<void> {
    const route = `rpc ${path.slice(1)}`;
    const metadata = flattenMetadata(call.metadata);
    const record: Mutable<ModalRequestRecord> = Object.assign(this.log.add("POST", path, route, metadata), {
      grpcStatus: undefined,
    });
    const connection = this.#listeners.connectionOf(call.getPeer());
    const abort = new AbortController();
    this.#inflight.add(abort);
    const onGone = () => abort.abort(new Error("the call was cancelled or its connection closed"));
    (call as Grpc.ServerUnaryCall<Buffer, Buffer>).on("cancelled", onGone);
    connection?.socket.once("close", onGone);
    const deadline = deadlineOf(call.getDeadline());
    const timer = deadline === undefined ? undefined : setTimeout(onGone, Math.max(0, deadline - Date.now()));
    const context: GrpcCallContext = {
      route,
      metadata: (name) => metadata[name.toLowerCase()],
      signal: abort.signal,
      deadline,
    };
    const drop = () => {
      record.status = 0;
      connection?.socket.destroy();
    };
    const finish = (error: GrpcError | undefined, answer?: Buffer) => {
      const code = error?.code ?? "OK";
      record.status = httpStatusOf(code);
      record.grpcStatus = GRPC_CODES[code];
      const status = error ? this.#status(error) : undefined;
      try {
        if (callback) callback(status ?? null, answer);
        else if (status) (call as Grpc.ServerWritableStream<Buffer, Buffer>).emit("error", status);
        else (call as Grpc.ServerWritableStream<Buffer, Buffer>).end();
      } catch {
        // The call is already gone; there is no one left to answer.
      }
    };
    try {
      const fault = this.faults.take(route);
      if (fault?.kind === "drop") return drop();
      if (fault?.kind === "latency") await delay(fault.ms, abort.signal);
      if (abort.signal.aborted) return drop();
      if (fault?.kind === "status") {
        const code = codeForHttpStatus(fault.status);
        return finish(
          new GrpcError(
            code,
            `injected fault: HTTP ${fault.status}`,
            fault.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: fault.retryAfterSeconds },
          ),
        );
      }
      if (registered.listener !== connection?.listener) {
        this.log.addUnknown("POST", path);
        return finish(new GrpcError("UNIMPLEMENTED", `${path.slice(1)} is not served on this port`));
      }
      const handler = registered.handler;
      if (!handler) {
        this.log.addUnknown("POST", path);
        return finish(new GrpcError("UNIMPLEMENTED", `${path.slice(1)} is not emulated`));
      }
      this.#guards.get(registered.listener)?.(context);
      const cutAfter = fault?.kind === "drop-mid-stream" ? (fault.afterEvents ?? 1) : undefined;
      const loseAnswer = fault?.kind === "lost-response" || (cutAfter !== undefined && handler.kind !== "serverStream");
      const { requestType, responseType } = registered.method;
      if (handler.kind === "serverStream") {
        const stream = call as Grpc.ServerWritableStream<Buffer, Buffer>;
        let sent = 0;
        let cut = cutAfter === 0;
        if (cut || loseAnswer) return drop();
        await handler.handle(
          decode(requestType, (call as Grpc.ServerWritableStream<Buffer, Buffer>).request),
          context,
          async (message) => {
            if (cut || abort.signal.aborted) return;
            const flushed = stream.write(encode(responseType, message));
            sent += 1;
            if (cutAfter !== undefined && sent >= cutAfter) {
              cut = true;
              // Let the messages already written leave, then kill the connection.
              setImmediate(drop);
              return;
            }
            if (!flushed)
              await new Promise<void>((resolve) => {
                stream.once("drain", resolve);
                abort.signal.addEventListener("abort", () => resolve(), { once: true });
              });
          },
        );
        if (cut) return;
        if (loseAnswer) return drop();
        return finish(undefined);
      }
      const answer =
        handler.kind === "unary"
          ? await handler.handle(decode(requestType, (call as Grpc.ServerUnaryCall<Buffer, Buffer>).request), context)
          : await handler.handle(decodeStream(requestType, call as Grpc.ServerReadableStream<Buffer, Buffer>), context);
      if (loseAnswer) return drop();
      return finish(undefined, encode(responseType, answer));
    } catch (error) {
      if (abort.signal.aborted && !(error instanceof GrpcError))
        return finish(new GrpcError("CANCELLED", messageOf(error)));
      return finish(toGrpcError(error));
    } finally {
      clearTimeout(timer);
      connection?.socket.off("close", onGone);
      this.#inflight.delete(abort);
    }
  }

  #status(error: GrpcError): Partial<Grpc.StatusObject> {
    const code = GRPC_CODES[error.code];
    const metadata = new this.#grpc.Metadata();
    if (error.retryAfterSeconds !== undefined) {
      metadata.set(
        "grpc-status-details-bin",
        Buffer.from(this.#retryDetails(code, error.message, error.retryAfterSeconds)),
      );
    }
    return { code, details: error.message, metadata };
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function pathOf(service: WireService, method: string): string {
  return `/${service.fullName}/${method}`;
}

function decode(type: MessageCodec, bytes: Buffer): WireJson {
  try {
    return type.toJSON(type.decode(bytes)) as WireJson;
  } catch (error) {
    throw new GrpcError("INVALID_ARGUMENT", `could not decode the request: ${messageOf(error)}`);
  }
}

async function* decodeStream(type: MessageCodec, call: AsyncIterable<Buffer>): AsyncIterable<WireJson> {
  for await (const chunk of call) yield decode(type, chunk);
}

function encode(type: MessageCodec, message: WireJson): Buffer {
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
