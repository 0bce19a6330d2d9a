// The exec WebSocket client against a server that answers and closes at once: nothing it sent before
// the caller listened is lost, whenever the caller gets to listen.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { openWebSocket } from "./websocket.js";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** One unmasked server frame (FIN set) of `opcode`. */
function serverFrame(opcode: number, payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([0x80 | opcode, payload.byteLength]), Buffer.from(payload)]);
}

let server: Server;
let url: URL;
before(async () => {
  server = createServer();
  server.on("upgrade", (request, socket) => {
    const accept = createHash("sha1")
      .update(String(request.headers["sec-websocket-key"]) + GUID)
      .digest("base64");
    // The handshake, two messages and the close frame in one write, as a command that ends at once answers.
    socket.end(
      Buffer.concat([
        Buffer.from(
          "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
            `Sec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n`,
        ),
        serverFrame(2, Uint8Array.of(1, 0x68, 0x69)),
        serverFrame(2, Uint8Array.of(3, 0x7b, 0x7d)),
        serverFrame(8, Uint8Array.of(0x03, 0xe8)),
      ]),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/exec`);
});
after(() => server.close());

for (const turns of [0, 1, 5]) {
  test(`messages and the close sent before the caller listens are delivered (listening after ${turns} event-loop turns)`, async () => {
    const socket = await openWebSocket({
      url,
      headers: {},
      protocols: ["v5.channel.k8s.io"],
      signal: new AbortController().signal,
    });
    for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve));
    const messages: number[][] = [];
    const closed = await new Promise<Error | undefined>((resolve) =>
      socket.listen({ onMessage: (message) => messages.push([...message]), onClose: resolve }),
    );
    assert.deepEqual(messages, [
      [1, 0x68, 0x69],
      [3, 0x7b, 0x7d],
    ]);
    assert.equal(closed, undefined, "a close frame ends it cleanly");
  });
}
