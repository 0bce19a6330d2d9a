// The forwarder's rewrite of a server's answer: its final head says `Connection: close`, nothing else changes.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { closingResponse } from "./closing-response.js";
import { MAX_REQUEST_HEAD_BYTES } from "./port-credential.js";

/** What `closingResponse` makes of `chunks`, written one by one. */
async function rewrite(...chunks: (string | Buffer)[]): Promise<string> {
  const stream = closingResponse();
  const out: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => stream.on("end", resolve));
  for (const chunk of chunks) stream.write(typeof chunk === "string" ? Buffer.from(chunk, "latin1") : chunk);
  stream.end();
  await ended;
  return Buffer.concat(out).toString("latin1");
}

describe("closingResponse", () => {
  test("a keep-alive answer: Connection: close instead of its Connection and Keep-Alive, the body as sent", async () => {
    const answer =
      "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 5\r\n\r\nhello";
    const expected = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello";
    assert.equal(await rewrite(answer), expected);
    // Byte by byte, as a slow server may send it.
    assert.equal(await rewrite(...[...answer].map((character) => character)), expected);
  });

  test("an answer that says nothing of its connection gets Connection: close", async () => {
    assert.equal(
      await rewrite("HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n"),
      "HTTP/1.1 204 No Content\r\nServer: x\r\nConnection: close\r\n\r\n",
    );
  });

  test("interim answers pass as they are; the final one is rewritten; later bytes are never read as a head", async () => {
    const body = "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\n";
    assert.equal(
      await rewrite(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
        `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      ),
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" +
        `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
  });

  test("a switch of protocols, bytes that are not HTTP, and an oversized head pass unchanged", async () => {
    const switched = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nraw";
    assert.equal(await rewrite(switched), switched);
    const binary = Buffer.from([0x16, 0x03, 0x01, 0x0d, 0x0a, 0x0d, 0x0a, 0xff]);
    assert.equal(await rewrite(binary), binary.toString("latin1"));
    assert.equal(await rewrite("HTT", "X/1.1 200\r\n\r\n"), "HTTX/1.1 200\r\n\r\n");
    const oversized = `HTTP/1.1 200 OK\r\nX-Padding: ${"a".repeat(MAX_REQUEST_HEAD_BYTES)}\r\nConnection: keep-alive\r\n\r\n`;
    assert.ok(
      (await rewrite(oversized.slice(0, 1000), oversized.slice(1000))) === oversized,
      "the oversized head changed",
    );
  });

  test("a server that closes within its head: what it sent is passed on", async () => {
    assert.equal(await rewrite("HTTP/1.1 200 OK\r\nContent-"), "HTTP/1.1 200 OK\r\nContent-");
  });
});
