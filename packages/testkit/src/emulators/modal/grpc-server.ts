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
import { ActiveCall, type AnyServerCall, decode, encode, type GrpcCallContext, type WireJson } from "./grpc-call.js";
import { codeForHttpStatus, GRPC_CODES, GrpcError, messageOf, toGrpcError } from "./grpc-status.js";
import { Listeners } from "./listeners.js";
import type { MessageCodec, WireMethod, WireService } from "./wire-definitions.js";

export type { GrpcCallContext, WireJson };

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
  readonly #inflight = new Set<ActiveCall>();
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

  /** True once `stop` was called. */
  get stopped(): boolean {
    return this.#stopping !== undefined;
  }

  /** Abort every call, destroy every connection and stop listening. Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      for (const call of this.#inflight) call.abort(new Error("emulator stopped"));
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
    const func = (call: AnyServerCall, callback?: Grpc.sendUnaryData<Buffer>) => {
      void this.#serve(path, registered, call, callback);
    };
    this.#server.register(path, func as Grpc.handleUnaryCall<Buffer, Buffer>, identity, identity, type);
  }

  async #serve(
    path: string,
    registered: Registered,
    call: AnyServerCall,
    callback: Grpc.sendUnaryData<Buffer> | undefined,
  ): Promise<void> {
    const active = new ActiveCall({
      path,
      call,
      callback,
      log: this.log,
      connection: this.#listeners.connectionOf(call.getPeer()),
      statusOf: (error) => this.#status(error),
    });
    this.#inflight.add(active);
    try {
      const fault = this.faults.take(active.context.route);
      if (fault?.kind === "drop") return active.drop();
      if (fault?.kind === "latency") await delay(fault.ms, active.signal);
      // A client that gave up (its deadline, its cancel) ends this call only: the connection carries others.
      if (active.signal.aborted) return active.abandon();
      if (fault?.kind === "status") {
        const retry = fault.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: fault.retryAfterSeconds };
        return active.finish(
          new GrpcError(codeForHttpStatus(fault.status), `injected fault: HTTP ${fault.status}`, retry),
        );
      }
      const handler = registered.handler;
      const elsewhere = active.connection !== undefined && active.connection.listener !== registered.listener;
      if (elsewhere || !handler) {
        this.log.addUnknown("POST", path);
        const why = elsewhere ? "is not served on this port" : "is not emulated";
        return active.finish(new GrpcError("UNIMPLEMENTED", `${path.slice(1)} ${why}`));
      }
      this.#guards.get(registered.listener)?.(active.context);
      const cutAfter = fault?.kind === "drop-mid-stream" ? (fault.afterEvents ?? 1) : undefined;
      const loseAnswer = fault?.kind === "lost-response" || (cutAfter !== undefined && handler.kind !== "serverStream");
      const { requestType, responseType } = registered.method;
      if (handler.kind === "serverStream") {
        const request = this.#decode(requestType, (call as Grpc.ServerWritableStream<Buffer, Buffer>).request);
        return await this.#stream(active, call as Grpc.ServerWritableStream<Buffer, Buffer>, responseType, {
          cutAfter,
          loseAnswer,
          run: (send) => handler.handle(request, active.context, send),
        });
      }
      const answer =
        handler.kind === "unary"
          ? await handler.handle(
              this.#decode(requestType, (call as Grpc.ServerUnaryCall<Buffer, Buffer>).request),
              active.context,
            )
          : await handler.handle(
              this.#decodeStream(requestType, call as Grpc.ServerReadableStream<Buffer, Buffer>),
              active.context,
            );
      if (loseAnswer) return active.drop();
      if (fault?.kind === "late-response") {
        // The work is done; the answer waits, and is never sent to a client that gave up meanwhile.
        await delay(fault.ms, active.signal);
        if (active.signal.aborted) return active.abandon();
      }
      return active.finish(undefined, encode(responseType, answer));
    } catch (error) {
      if (active.signal.aborted && !(error instanceof GrpcError)) {
        return active.finish(new GrpcError("CANCELLED", messageOf(error)));
      }
      return active.finish(toGrpcError(error));
    } finally {
      active.dispose();
      this.#inflight.delete(active);
      active.record.endedAt = Date.now();
    }
  }

  /** Run a server-stream handler, cutting the connection after `cutAfter` messages when a fault says so. */
  async #stream(
    active: ActiveCall,
    stream: Grpc.ServerWritableStream<Buffer, Buffer>,
    responseType: MessageCodec,
    plan: {
      readonly cutAfter: number | undefined;
      readonly loseAnswer: boolean;
      readonly run: (send: (message: WireJson) => Promise<void>) => Promise<void>;
    },
  ): Promise<void> {
    let sent = 0;
    let cut = plan.cutAfter === 0;
    if (cut || plan.loseAnswer) return active.drop();
    await plan.run(async (message) => {
      if (cut || active.signal.aborted) return;
      const flushed = stream.write(encode(responseType, message));
      sent += 1;
      if (plan.cutAfter !== undefined && sent >= plan.cutAfter) {
        cut = true;
        // Let the messages already written leave, then kill the connection.
        setImmediate(() => active.drop());
        return;
      }
      if (!flushed) {
        await new Promise<void>((resolve) => {
          stream.once("drain", resolve);
          active.signal.addEventListener("abort", () => resolve(), { once: true });
        });
      }
    });
    if (cut) return;
    if (active.signal.aborted) return active.finish(new GrpcError("CANCELLED", "the client went away"));
    return active.finish(undefined);
  }

  #decode(type: MessageCodec, bytes: Buffer): WireJson {
    return decode(type, bytes, (message) => new GrpcError("INVALID_ARGUMENT", message));
  }

  async *#decodeStream(type: MessageCodec, call: AsyncIterable<Buffer>): AsyncIterable<WireJson> {
    for await (const chunk of call) yield this.#decode(type, chunk);
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

function pathOf(service: WireService, method: string): string {
  return `/${service.fullName}/${method}`;
}
