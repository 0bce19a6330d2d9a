import { randomBytes, timingSafeEqual } from "node:crypto";

/**
 * The header that carries a local port endpoint's credential (`PortEndpoint.headers`).
 * The forwarder checks it on every connection and removes it before the request reaches the sandbox.
 */
export const PORT_CREDENTIAL_HEADER = "x-sandport-port-credential";

/** The most a request head may take before the forwarder refuses it (`431`); Node's own HTTP server allows 16 KiB. */
export const MAX_REQUEST_HEAD_BYTES = 64 * 1024;

/** A fresh credential: 32 random bytes, base64url (43 characters). Held in memory only, never logged. */
export function newPortCredential(): string {
  return randomBytes(32).toString("base64url");
}

/** What {@link admitRequestHead} decided about a complete request head. */
export type HeadVerdict =
  | {
      readonly admitted: true;
      /** The head to send on: without the credential, asking the server to close after its response. */
      readonly head: Buffer;
      /** The request asks for an upgrade (WebSocket): its connection is kept, not closed after one response. */
      readonly upgrade: boolean;
    }
  | { readonly admitted: false; readonly status: 400 | 401 };

const TERMINATOR = Buffer.from("\r\n\r\n");
/** An HTTP token (RFC 9110 `tchar`s): a method or a field name. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Where the head that starts `buffer` ends (after its blank line), or `undefined` while it is incomplete. */
export function requestHeadLength(buffer: Buffer): number | undefined {
  const index = buffer.indexOf(TERMINATOR);
  return index < 0 ? undefined : index + TERMINATOR.length;
}

/**
 * Checks one complete HTTP/1.x request head (up to and including its blank
 * line) for the credential, and rewrites it for the sandbox's server:
 *
 * - no credential header, or one whose value differs (compared in constant
 *   time; every one given must match): `401`; a head that is not HTTP/1.x,
 *   has folded lines (obsolete, and a way to hide a header) or a field name
 *   that is not a token: `400`;
 * - otherwise the credential lines are removed and, unless the request asks for
 *   an upgrade (WebSocket), `Connection` and `Keep-Alive` are replaced by
 *   `Connection: close`: the server answers this one request and closes, so a
 *   client's next request comes on a new connection and is checked again.
 */
export function admitRequestHead(head: Buffer, credential: string): HeadVerdict {
  const lines = head.toString("latin1").split("\r\n");
  // The head ends with "\r\n\r\n": the last two entries are empty.
  const requestLine = lines[0] ?? "";
  const [method, target, version, ...extra] = requestLine.split(" ");
  if (!TOKEN.test(method ?? "") || !target || !/^HTTP\/1\.[01]$/.test(version ?? "") || extra.length > 0) {
    return { admitted: false, status: 400 };
  }
  const fields = lines.slice(1, -2);
  const expected = Buffer.from(credential, "latin1");
  let credentials = 0;
  let matching = true;
  let upgrade = false;
  const kept: string[] = [];
  for (const field of fields) {
    if (field.startsWith(" ") || field.startsWith("\t")) return { admitted: false, status: 400 };
    const colon = field.indexOf(":");
    // A name that is not a token (`Name :` with a space) would be read differently by the server: refused.
    if (colon <= 0 || !TOKEN.test(field.slice(0, colon))) return { admitted: false, status: 400 };
    const name = field.slice(0, colon).toLowerCase();
    const value = field.slice(colon + 1).trim();
    if (name === PORT_CREDENTIAL_HEADER) {
      credentials++;
      const given = Buffer.from(value, "latin1");
      matching = given.length === expected.length && timingSafeEqual(given, expected) && matching;
      continue;
    }
    if (name === "connection" && /(^|,)\s*upgrade\s*(,|$)/i.test(value)) upgrade = true;
    kept.push(field);
  }
  if (credentials === 0 || !matching) return { admitted: false, status: 401 };
  const sent = upgrade ? kept : kept.filter((field) => !/^(connection|keep-alive)\s*:/i.test(field));
  if (!upgrade) sent.push("Connection: close");
  const rewritten = Buffer.from(`${[requestLine, ...sent].join("\r\n")}\r\n\r\n`, "latin1");
  return { admitted: true, head: rewritten, upgrade };
}

const REASONS = {
  400: "Bad Request",
  401: "Unauthorized",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

/** The plain HTTP answer the forwarder gives a connection it refuses, before closing it. */
export function refusal(status: keyof typeof REASONS): Buffer {
  const body =
    status === 401
      ? "this port endpoint needs the headers portEndpoint returned with it\n"
      : `${REASONS[status].toLowerCase()}\n`;
  return Buffer.from(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    "latin1",
  );
}
