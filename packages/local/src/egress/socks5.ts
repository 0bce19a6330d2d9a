import { connect, type Socket } from "node:net";
import type { EgressDecision } from "./egress-rules.js";

/** The first byte of every SOCKS5 greeting (the protocol version); an HTTP request never starts with it. */
export const SOCKS5_VERSION = 0x05;

/** Where a SOCKS5 client asked to go, and how the proxy decides. */
export type SocksDecide = (host: string, port: number) => Promise<EgressDecision>;

/** Reply codes of RFC 1928, section 6, that the proxy sends. */
const REPLY = {
  succeeded: 0x00,
  generalFailure: 0x01,
  notAllowed: 0x02,
  hostUnreachable: 0x04,
  connectionRefused: 0x05,
  commandNotSupported: 0x07,
  addressTypeNotSupported: 0x08,
} as const;

/** The greeting, then the request: each step needs a whole message, however the bytes arrive. */
type Parsed<T> = { readonly value: T; readonly rest: Buffer } | undefined;

/**
 * Serves one SOCKS5 connection (RFC 1928) whose first bytes are `first`:
 * no authentication (method `0x00`; a client offering none of that is
 * refused), the `CONNECT` command only (`BIND` and `UDP ASSOCIATE` are
 * answered "command not supported"), IPv4, IPv6 and domain-name targets.
 * A name is resolved by `decide` on the host (a client using `socks5h`), an
 * address is checked as given; a refused target is answered "connection not
 * allowed by ruleset" (`0x02`), as the HTTP side answers `403`.
 */
export function serveSocks5(client: Socket, first: Buffer, decide: SocksDecide): void {
  let buffered = first;
  let stage: "greeting" | "request" | "done" = "greeting";
  const fail = (code: number) => {
    stage = "done";
    client.end(Buffer.from([SOCKS5_VERSION, code, 0, 1, 0, 0, 0, 0, 0, 0]));
  };
  const step = () => {
    if (stage === "greeting") {
      const greeting = parseGreeting(buffered);
      if (greeting === undefined) return;
      buffered = greeting.rest;
      if (!greeting.value.includes(0x00)) {
        stage = "done";
        return void client.end(Buffer.from([SOCKS5_VERSION, 0xff]));
      }
      client.write(Buffer.from([SOCKS5_VERSION, 0x00]));
      stage = "request";
    }
    if (stage === "request") {
      const parsed = parseRequest(buffered);
      if (parsed === undefined) return;
      stage = "done";
      client.off("data", onData);
      client.pause();
      const { value, rest } = parsed;
      if (value === "bad-version") return fail(REPLY.generalFailure);
      if (value === "bad-address") return fail(REPLY.addressTypeNotSupported);
      if (value.command !== 0x01) return fail(REPLY.commandNotSupported);
      void open(client, value.host, value.port, rest, decide);
    }
  };
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    step();
  };
  client.on("data", onData);
  step();
}

async function open(client: Socket, host: string, port: number, head: Buffer, decide: SocksDecide): Promise<void> {
  const reply = (code: number) => Buffer.from([SOCKS5_VERSION, code, 0, 1, 0, 0, 0, 0, 0, 0]);
  const decision = await decide(host, port);
  if (!decision.allowed) return void client.end(reply(REPLY.notAllowed));
  const upstream = connect(port, decision.address);
  upstream.once("connect", () => {
    client.write(reply(REPLY.succeeded));
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    client.resume();
  });
  upstream.on("error", (error: NodeJS.ErrnoException) => {
    if (!upstream.connecting) return void client.destroy();
    const code =
      error.code === "ECONNREFUSED"
        ? REPLY.connectionRefused
        : error.code === "EHOSTUNREACH" || error.code === "ENETUNREACH"
          ? REPLY.hostUnreachable
          : REPLY.generalFailure;
    client.end(reply(code));
  });
  client.on("close", () => upstream.destroy());
}

/** `VER NMETHODS METHODS...`: the methods offered. */
function parseGreeting(buffer: Buffer): Parsed<readonly number[]> {
  if (buffer.length < 2) return undefined;
  const count = buffer[1] as number;
  if (buffer.length < 2 + count) return undefined;
  return { value: [...buffer.subarray(2, 2 + count)], rest: buffer.subarray(2 + count) };
}

/** `VER CMD RSV ATYP DST.ADDR DST.PORT`. */
function parseRequest(
  buffer: Buffer,
): Parsed<{ command: number; host: string; port: number } | "bad-version" | "bad-address"> {
  if (buffer.length < 5) return undefined;
  if (buffer[0] !== SOCKS5_VERSION) return { value: "bad-version", rest: Buffer.alloc(0) };
  const command = buffer[1] as number;
  const type = buffer[3];
  let host: string;
  let end: number;
  if (type === 0x01) {
    end = 4 + 4;
    if (buffer.length < end + 2) return undefined;
    host = [...buffer.subarray(4, end)].join(".");
  } else if (type === 0x03) {
    end = 5 + (buffer[4] as number);
    if (buffer.length < end + 2) return undefined;
    host = buffer.subarray(5, end).toString("latin1");
  } else if (type === 0x04) {
    end = 4 + 16;
    if (buffer.length < end + 2) return undefined;
    const groups: string[] = [];
    for (let offset = 4; offset < end; offset += 2) groups.push(buffer.readUInt16BE(offset).toString(16));
    host = groups.join(":");
  } else {
    return { value: "bad-address", rest: Buffer.alloc(0) };
  }
  return { value: { command, host, port: buffer.readUInt16BE(end) }, rest: buffer.subarray(end + 2) };
}
