// The request-head check of a port endpoint's forwarder, on heads given as bytes.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { admitRequestHead, newPortCredential, PORT_CREDENTIAL_HEADER, requestHeadLength } from "./port-credential.js";

const credential = newPortCredential();
const head = (...lines: string[]) => Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
const admitted = (verdict: ReturnType<typeof admitRequestHead>) => {
  assert.ok(verdict.admitted, `refused: ${verdict.admitted ? "" : verdict.status}`);
  return verdict.head.toString("latin1");
};

describe("admitRequestHead", () => {
  test("the credential, in any case of the name: admitted, its line removed, Connection: close instead of keep-alive", () => {
    const sent = admitted(
      admitRequestHead(
        head(
          "GET /a HTTP/1.1",
          "Host: x",
          "Connection: keep-alive",
          "Keep-Alive: timeout=5",
          `X-Sandport-Port-Credential:  ${credential} `,
          "Accept: */*",
        ),
        credential,
      ),
    );
    assert.equal(sent, "GET /a HTTP/1.1\r\nHost: x\r\nAccept: */*\r\nConnection: close\r\n\r\n");
  });

  test("an upgrade keeps its Connection header", () => {
    const sent = admitted(
      admitRequestHead(
        head(
          "GET /ws HTTP/1.1",
          "Connection: keep-alive, Upgrade",
          "Upgrade: websocket",
          `${PORT_CREDENTIAL_HEADER}: ${credential}`,
        ),
        credential,
      ),
    );
    assert.equal(sent, "GET /ws HTTP/1.1\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\n");
  });

  test("missing, wrong, or one of two wrong: 401", () => {
    const wrong = `${credential.slice(0, -1)}${credential.endsWith("A") ? "B" : "A"}`;
    for (const fields of [
      ["Host: x"],
      [`${PORT_CREDENTIAL_HEADER}: ${wrong}`],
      [`${PORT_CREDENTIAL_HEADER}: ${credential}x`],
      [`${PORT_CREDENTIAL_HEADER}:`],
      [`${PORT_CREDENTIAL_HEADER}: ${credential}`, `${PORT_CREDENTIAL_HEADER}: ${wrong}`],
    ]) {
      assert.deepEqual(admitRequestHead(head("GET / HTTP/1.1", ...fields), credential), {
        admitted: false,
        status: 401,
      });
    }
  });

  test("not HTTP/1.x, a folded line, or a name that is not a token: 400", () => {
    const line = `${PORT_CREDENTIAL_HEADER}: ${credential}`;
    for (const bad of [
      head("GET / HTTP/2.0", line),
      head("GET /", line),
      head("\u0016\u0003\u0001 / HTTP/1.1", line),
      head("GET / HTTP/1.1", line, " folded"),
      head("GET / HTTP/1.1", `${PORT_CREDENTIAL_HEADER} : ${credential}`),
      head("GET / HTTP/1.1", line, "no colon"),
    ]) {
      assert.deepEqual(admitRequestHead(bad, credential), { admitted: false, status: 400 });
    }
  });

  test("requestHeadLength: undefined until the blank line, then the head's length", () => {
    assert.equal(requestHeadLength(Buffer.from("GET / HTTP/1.1\r\nHost: x\r\n")), undefined);
    assert.equal(requestHeadLength(Buffer.from("GET / HTTP/1.1\r\n\r\nbody")), 18);
  });
});
