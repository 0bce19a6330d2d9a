import { type ClientHttp2Session, type ClientHttp2Stream, connect, constants } from "node:http2";
import { GrpcStatusError, KubernetesMalformedAnswer } from "../errors.js";

/** One gRPC call: its method path, request message, extra metadata and cancellation. */
export interface GrpcCall {
  /** `/package.Service/Method`. */
  readonly path: string;
  /** The encoded request message. */
  readonly message: Uint8Array;
  /** Metadata (request headers): the router's `x-sandbox-*`. */
  readonly metadata: Readonly<Record<string, string>>;
  /** Cancels the call (the stream is reset, `CANCEL`). */
  readonly signal: AbortSignal;
  /** Each response message, as it arrives. */
  readonly onMessage: (message: Uint8Array) => void;
}

/**
 * A gRPC client over HTTP/2 (`node:http2`; cleartext h2c with prior
 * knowledge for `http:` URLs, TLS for `https:`), written for the few calls
 * sandboxd takes: a request message, zero or more response messages
 * (5-byte frames: a compression flag and a big-endian length), and the
 * status in the trailers (or in the headers, trailers-only). No
 * compression is asked for or accepted. One HTTP/2 connection per URL is
 * shared by every call and kept referenced only while calls are open, so an
 * idle runtime never holds a process open.
 */
export class GrpcClient {
  readonly #url: string;
  #session: ClientHttp2Session | undefined;
  #open = 0;

  constructor(url: string) {
    this.#url = url;
  }

  /** Runs one call; resolves once the server ended it with status 0, rejects `GrpcStatusError` otherwise. */
  call(call: GrpcCall): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (call.signal.aborted) {
        reject(call.signal.reason);
        return;
      }
      let session: ClientHttp2Session;
      try {
        session = this.#connect();
      } catch (error) {
        reject(new GrpcStatusError(14, `cannot connect to ${this.#url}: ${String(error)}`, false));
        return;
      }
      let answered = false;
      let settled = false;
      const finish = (error?: unknown) => {
        if (settled) return;
        settled = true;
        call.signal.removeEventListener("abort", onAbort);
        this.#release();
        if (error === undefined) resolve();
        else reject(error);
      };
      const stream: ClientHttp2Stream = session.request({
        [constants.HTTP2_HEADER_METHOD]: "POST",
        [constants.HTTP2_HEADER_PATH]: call.path,
        [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc",
        te: "trailers",
        ...call.metadata,
      });
      this.#open++;
      session.ref();
      const onAbort = () => {
        stream.close(constants.NGHTTP2_CANCEL);
        finish(call.signal.reason);
      };
      call.signal.addEventListener("abort", onAbort, { once: true });
      let buffered: Buffer = Buffer.alloc(0);
      let status: { code: number; message: string } | undefined;
      const readStatus = (headers: Record<string, unknown>) => {
        const code = headers["grpc-status"];
        if (code === undefined) return;
        const message = headers["grpc-message"];
        status = {
          code: Number(code),
          message: typeof message === "string" ? decodeURIComponent(message) : "",
        };
      };
      stream.on("response", (headers) => {
        answered = true;
        const httpStatus = Number(headers[constants.HTTP2_HEADER_STATUS]);
        if (httpStatus !== 200) {
          status = { code: httpStatus === 502 || httpStatus === 503 ? 14 : 2, message: `HTTP ${httpStatus}` };
        }
        readStatus(headers);
      });
      stream.on("trailers", (trailers) => readStatus(trailers));
      stream.on("data", (chunk: Buffer) => {
        buffered = buffered.byteLength === 0 ? chunk : Buffer.concat([buffered, chunk]);
        while (buffered.byteLength >= 5) {
          const length = buffered.readUInt32BE(1);
          if (buffered.byteLength < 5 + length) break;
          if (buffered[0] !== 0) {
            finish(new KubernetesMalformedAnswer("sandboxd sent a compressed gRPC message, which was not asked for"));
            stream.close(constants.NGHTTP2_CANCEL);
            return;
          }
          const message = buffered.subarray(5, 5 + length);
          buffered = buffered.subarray(5 + length);
          try {
            call.onMessage(message);
          } catch (error) {
            finish(error);
            stream.close(constants.NGHTTP2_CANCEL);
            return;
          }
        }
      });
      stream.on("error", (error) => {
        finish(new GrpcStatusError(14, `the gRPC stream ${call.path} broke: ${error.message}`, answered));
      });
      stream.on("close", () => {
        if (status === undefined) {
          finish(new GrpcStatusError(14, `the gRPC stream ${call.path} closed without a status`, answered));
        } else if (status.code !== 0) {
          finish(
            new GrpcStatusError(status.code, `${call.path}: gRPC status ${status.code}: ${status.message}`, true, true),
          );
        } else if (buffered.byteLength > 0) {
          finish(new KubernetesMalformedAnswer(`${call.path}: the last gRPC message was cut short`));
        } else {
          finish();
        }
      });
      const frame = Buffer.alloc(5 + call.message.byteLength);
      frame.writeUInt32BE(call.message.byteLength, 1);
      frame.set(call.message, 5);
      stream.end(frame);
    });
  }

  /** Closes the shared connection (calls still open are cut). */
  close(): void {
    this.#session?.close();
    this.#session = undefined;
  }

  #connect(): ClientHttp2Session {
    if (this.#session && !this.#session.closed && !this.#session.destroyed) return this.#session;
    const session = connect(this.#url);
    session.on("error", () => {
      // Each open stream reports its own failure; a later call reconnects.
      if (this.#session === session) this.#session = undefined;
    });
    session.on("close", () => {
      if (this.#session === session) this.#session = undefined;
    });
    session.unref();
    this.#session = session;
    return session;
  }

  #release(): void {
    this.#open--;
    if (this.#open === 0) this.#session?.unref();
  }
}
