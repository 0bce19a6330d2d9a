// Bytes on the wire between the adapters and the emulators of this process: every socket a server in
// this process accepts is kept (through the `net.server.socket` diagnostics channel, which http, http2
// and WebSocket servers all go through), and its bytes read and written are summed. That is headers,
// framing and bodies both ways, as a network would carry them (without TLS). An emulator whose own
// front forwards to an internal server of its own (the Kubernetes router) counts each byte twice unless
// the count is limited to its public ports.
import { subscribe } from "node:diagnostics_channel";

const sockets = [];
let counting = false;

/** Keeps every socket a server in this process accepts from now on (until the process ends). */
export function countWireBytes() {
  if (counting) return;
  counting = true;
  subscribe("net.server.socket", ({ socket }) => sockets.push({ socket, port: socket.localPort }));
}

/** Bytes read and written so far by the sockets servers here accepted, on `ports` only when given. */
export function wireBytes(ports) {
  let total = 0;
  for (const { socket, port } of sockets)
    if (!ports || ports.includes(port)) total += socket.bytesRead + socket.bytesWritten;
  return total;
}

/** The local ports of every socket accepted so far (to find an emulator's internal hops). */
export function acceptedPorts() {
  return [...new Set(sockets.map(({ port }) => port))];
}

/** The port of an `http://host:port` URL. */
export function portOf(url) {
  const parsed = new URL(url);
  return Number(parsed.port || (parsed.protocol === "https:" ? 443 : 80));
}
