import { Transform, type TransformCallback } from "node:stream";
import { MAX_REQUEST_HEAD_BYTES, requestHeadLength } from "./port-credential.js";

/** An interim response (`100 Continue`, `103 Early Hints`): another head follows it. `101` ends HTTP instead. */
const INTERIM = /^HTTP\/1\.[01] 1(?!01)\d\d(?: |\r)/;

/**
 * Rewrites the final head of a server's response to one request so that it
 * says `Connection: close` (its `Connection` and `Keep-Alive` fields dropped),
 * and passes everything else through unchanged: interim `1xx` heads before it,
 * and the body after it.
 *
 * The forwarder sends each request on a connection of its own and asks the
 * server to close after answering (see `admitRequestHead`). A server need not
 * say so in its answer (Python's `http.server` does not); a client that reads
 * an HTTP/1.1 answer without `Connection: close` keeps the connection for its
 * next request, which then races the server's close and fails ("socket hang
 * up", "other side closed"). With the field, the client opens a new
 * connection, which is checked again.
 *
 * Bytes that are not an HTTP/1.x head, or a head past
 * {@link MAX_REQUEST_HEAD_BYTES}, are passed on as they are.
 */
export function closingResponse(): Transform {
  let pending: Buffer | undefined = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      if (pending === undefined) return callback(null, chunk);
      pending = Buffer.concat([pending, chunk]);
      const out: Buffer[] = [];
      for (;;) {
        const start = startsResponseHead(pending);
        if (start === false) break;
        const length = start === undefined ? undefined : requestHeadLength(pending);
        if (length === undefined && pending.length <= MAX_REQUEST_HEAD_BYTES) {
          return callback(null, Buffer.concat(out));
        }
        if (length === undefined || length > MAX_REQUEST_HEAD_BYTES) break;
        const head = pending.subarray(0, length);
        pending = pending.subarray(length);
        if (INTERIM.test(head.toString("latin1"))) {
          out.push(head);
          continue;
        }
        out.push(closingHead(head));
        break;
      }
      out.push(pending);
      pending = undefined;
      callback(null, Buffer.concat(out));
    },
    flush(callback: TransformCallback) {
      // The server closed within a head: pass on what it sent.
      callback(null, pending);
    },
  });
}

/** Whether `bytes` start with `HTTP/1.0 ` or `HTTP/1.1 `; `undefined` while too few have come to tell. */
function startsResponseHead(bytes: Buffer): boolean | undefined {
  const start = bytes.subarray(0, 9).toString("latin1");
  const fits = ["HTTP/1.0 ", "HTTP/1.1 "].some((version) => version.startsWith(start));
  if (!fits) return false;
  return start.length === 9 ? true : undefined;
}

/** `head` (a complete response head) with `Connection: close` in place of its `Connection` and `Keep-Alive` fields. */
function closingHead(head: Buffer): Buffer {
  const lines = head.toString("latin1").split("\r\n").slice(0, -2);
  // A switch of protocols keeps its connection: nothing to close.
  if (/^HTTP\/1\.[01] 101/.test(lines[0] ?? "")) return head;
  const kept = lines.filter((line, index) => index === 0 || !/^(connection|keep-alive)\s*:/i.test(line));
  return Buffer.from(`${[...kept, "Connection: close"].join("\r\n")}\r\n\r\n`, "latin1");
}
