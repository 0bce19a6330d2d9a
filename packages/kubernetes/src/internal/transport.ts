import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

/** What one request sends: the `fetch` subset the clients use. */
export interface TransportRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array | string;
  readonly signal?: AbortSignal;
}

/** Sends one HTTP(S) request and resolves with its response once the headers arrived. */
export type Transport = (url: URL, request: TransportRequest) => Promise<Response>;

/** Statuses whose response can carry no body (a `Response` refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * An HTTP(S) transport on `node:http`/`node:https`, trusting `caData` (the
 * PEM of a kubeconfig's `certificate-authority-data`, decoded) when given.
 * Node 20's global `fetch` takes no CA of its own (that needs undici's
 * `Agent`, which Node does not export), so the API server of a cluster with
 * its own CA is reached this way; with no CA the system's are used. Each
 * request is its own connection (no agent pool is kept past the runtime).
 */
export function nodeTransport(caData?: string): Transport {
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const secure = url.protocol === "https:";
      const send = secure ? httpsRequest : httpRequest;
      const body = typeof init.body === "string" ? Buffer.from(init.body) : init.body;
      const headers: Record<string, string> = { ...init.headers };
      if (body !== undefined) headers["content-length"] = String(body.byteLength);
      const outgoing = send(
        url,
        {
          method: init.method,
          headers,
          ...(secure && caData !== undefined ? { ca: caData } : {}),
          ...(init.signal ? { signal: init.signal } : {}),
        },
        (incoming: IncomingMessage) => {
          const status = incoming.statusCode ?? 0;
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (value === undefined) continue;
            for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
          }
          if (NULL_BODY.has(status) || init.method === "HEAD") {
            incoming.resume();
            resolve(new Response(null, { status, headers: responseHeaders }));
            return;
          }
          const stream = Readable.toWeb(incoming) as unknown as ReadableStream<Uint8Array>;
          resolve(new Response(stream, { status, headers: responseHeaders }));
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body);
    });
}
