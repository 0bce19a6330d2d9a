import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { waitFor } from "../../assertions/index.js";
import { decodeEnvelopes, encodeEnvelope, isRpcPath, RpcError, rpcRoute } from "./connect-rpc.js";
import { FaultInjector } from "./faults.js";
import { delay, EmulatorServer } from "./http-server.js";
import { Router } from "./router.js";

describe("Router", () => {
  it("captures parameters and prefers literal segments", () => {
    const router = new Router();
    const handler = () => {};
    router.add({ method: "GET", pattern: "/sandboxes/:id", handler });
    router.add({ method: "GET", pattern: "/sandboxes/metrics", handler });
    assert.deepEqual(router.match("GET", "/sandboxes/abc%20d")?.params, { id: "abc d" });
    assert.equal(router.match("GET", "/sandboxes/abc")?.name, "GET /sandboxes/:id");
    assert.equal(router.match("GET", "/sandboxes/metrics")?.name, "GET /sandboxes/metrics");
    assert.equal(router.match("POST", "/sandboxes/abc"), undefined);
    assert.equal(router.match("GET", "/sandboxes/abc/extra"), undefined);
  });
});

describe("FaultInjector", () => {
  it("applies a rule `times` times, first matching rule first, strings exactly and patterns by test", () => {
    const faults = new FaultInjector();
    faults.add({ route: "GET /a", fault: { kind: "drop" }, times: 2 });
    faults.add({ route: /^GET \//g, fault: { kind: "latency", ms: 5 } });
    assert.equal(faults.take("GET /a")?.kind, "drop");
    assert.equal(faults.take("GET /a/b")?.kind, "latency");
    assert.equal(faults.take("GET /a")?.kind, "drop");
    assert.equal(faults.take("GET /a"), undefined);
    assert.equal(faults.take("GET /ab"), undefined);
  });

  it("refuses malformed rules", () => {
    const faults = new FaultInjector();
    assert.throws(() => faults.add({ route: "x", fault: { kind: "status", status: 200 } }), RangeError);
    assert.throws(() => faults.add({ route: "x", fault: { kind: "drop" }, times: 0 }), RangeError);
    assert.throws(() => faults.add({ route: "x", fault: { kind: "explode" } as never }), TypeError);
  });
});

describe("Connect envelopes", () => {
  it("round-trips messages and recognises procedure paths", () => {
    const body = Buffer.concat([encodeEnvelope(0, Buffer.from('{"a":1}')), encodeEnvelope(2, Buffer.from("{}"))]);
    const frames = decodeEnvelopes(body);
    assert.deepEqual(
      frames.map((frame) => [frame.flags, frame.payload.toString()]),
      [
        [0, '{"a":1}'],
        [2, "{}"],
      ],
    );
    assert.throws(() => decodeEnvelopes(body.subarray(0, 8)), RpcError);
    assert.equal(isRpcPath("/process.Process/Start"), true);
    assert.equal(isRpcPath("/files"), false);
    assert.equal(isRpcPath("/v2/sandboxes"), false);
  });
});

describe("EmulatorServer", () => {
  let server: EmulatorServer;
  let work = 0;

  before(async () => {
    server = await EmulatorServer.start();
    server.route({
      method: "POST",
      pattern: "/work/:name",
      handler: (exchange) => {
        work += 1;
        exchange.json(201, { name: exchange.params.name, body: exchange.body.toString() });
      },
    });
    server.route({
      method: "GET",
      pattern: "/events",
      handler: async (exchange) => {
        work += 1;
        const stream = exchange.stream(200, { "content-type": "text/plain" });
        for (let index = 0; index < 3; index++) {
          stream.write(`event-${index}\n`);
          await delay(20);
        }
        stream.end("end\n");
      },
    });
    server.route(
      rpcRoute("demo.Demo", "Echo", {
        kind: "unary",
        handler: (request) => {
          if (request.fail) throw new RpcError("not_found", "no such thing");
          return { echo: request.value };
        },
      }),
    );
    server.route(
      rpcRoute("demo.Demo", "Count", {
        kind: "server-stream",
        handler: async (request, stream) => {
          for (let index = 0; index < Number(request.upTo); index++) stream.send({ index });
          if (request.fail) throw new RpcError("aborted", "stopped");
        },
      }),
    );
  });

  after(() => server.stop());

  beforeEach(() => {
    server.log.reset();
    server.faults.clear();
    work = 0;
  });

  it("listens on 127.0.0.1, routes, and records every request at arrival", async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${server.url}/work/a?x=1`, {
      method: "POST",
      body: "hi",
      headers: { "X-Test": "yes" },
    });
    assert.equal(response.status, 201);
    assert.deepEqual(await response.json(), { name: "a", body: "hi" });
    const [record] = server.log.records;
    assert.equal(record?.route, "POST /work/:name");
    assert.equal(record?.path, "/work/a?x=1");
    assert.equal(record?.method, "POST");
    assert.equal(record?.status, 201);
    assert.equal(record?.headers["x-test"], "yes");
    assert.ok(Math.abs((record?.startedAt ?? 0) - Date.now()) < 5000);
    assert.equal(server.log.count("POST /work/:name"), 1);
    assert.equal(server.log.count(/^GET /), 0);
  });

  it("answers an unknown route 404 and logs it, never 200", async () => {
    const response = await fetch(`${server.url}/nothing/here?q=1`);
    assert.equal(response.status, 404);
    assert.deepEqual(server.log.unknownRoutes, ["GET /nothing/here?q=1"]);
    assert.equal(server.log.records[0]?.route, "GET /nothing/here");
  });

  it("status fault: answers with the status and Retry-After, without doing the work", async () => {
    server.faults.add({ route: "POST /work/:name", fault: { kind: "status", status: 429, retryAfterSeconds: 2 } });
    const response = await fetch(`${server.url}/work/a`, { method: "POST", body: "x" });
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("retry-after"), "2");
    assert.equal(work, 0);
    const again = await fetch(`${server.url}/work/a`, { method: "POST", body: "x" });
    assert.equal(again.status, 201, "the fault applies once by default");
    assert.equal(work, 1);
  });

  it("latency fault: delays, then does the work", async () => {
    server.faults.add({ route: "POST /work/:name", fault: { kind: "latency", ms: 150 } });
    const started = Date.now();
    const response = await fetch(`${server.url}/work/a`, { method: "POST", body: "x" });
    assert.equal(response.status, 201);
    assert.ok(Date.now() - started >= 140);
    assert.equal(work, 1);
  });

  it("drop fault: the connection dies before any work", async () => {
    server.faults.add({ route: "POST /work/:name", fault: { kind: "drop" } });
    await assert.rejects(fetch(`${server.url}/work/a`, { method: "POST", body: "x" }));
    assert.equal(work, 0);
    assert.equal(server.log.records[0]?.status, 0);
    assert.notEqual(server.log.records[0]?.endedAt, undefined, "done with it");
  });

  it("a delayed request whose caller left is given up, never processed, and marked done (endedAt)", async () => {
    server.faults.add({ route: "POST /work/:name", fault: { kind: "latency", ms: 5_000 } });
    const controller = new AbortController();
    const call = fetch(`${server.url}/work/a`, { method: "POST", body: "x", signal: controller.signal });
    await waitFor(() => server.log.records.length > 0 || undefined);
    assert.equal(server.log.records[0]?.endedAt, undefined, "still being handled");
    controller.abort();
    await assert.rejects(call);
    await waitFor(() => server.log.records[0]?.endedAt !== undefined || undefined, { what: "the request to end" });
    assert.deepEqual([server.log.records[0]?.status, work], [0, 0]);
  });

  it("lost-response fault: the work is done, the answer never arrives", async () => {
    server.faults.add({ route: "POST /work/:name", fault: { kind: "lost-response" } });
    await assert.rejects(fetch(`${server.url}/work/a`, { method: "POST", body: "x" }));
    assert.equal(work, 1);
    assert.equal(server.log.records[0]?.status, 0);
    await waitFor(() => server.log.records[0]?.endedAt !== undefined || undefined, { what: "the request to end" });
  });

  it("late-response fault: the work is done at once, the answer held; a client that gives up gets none", async () => {
    server.faults.add({ route: "POST /work/:name", fault: { kind: "late-response", ms: 300 } });
    const answered = await fetch(`${server.url}/work/a`, { method: "POST", body: "x" });
    assert.equal(answered.status, 201, "the held answer arrives");
    assert.equal(work, 1);
    server.faults.add({ route: "POST /work/:name", fault: { kind: "late-response", ms: 60_000 } });
    const controller = new AbortController();
    const gaveUp = fetch(`${server.url}/work/b`, { method: "POST", body: "x", signal: controller.signal });
    while (work < 2) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await assert.rejects(gaveUp);
    assert.equal(work, 2, "the work stays done");
  });

  it("drop-mid-stream fault: a stream is cut after N events; a plain answer after its headers", async () => {
    server.faults.add({ route: "GET /events", fault: { kind: "drop-mid-stream", afterEvents: 2 } });
    const response = await fetch(`${server.url}/events`);
    assert.equal(response.status, 200);
    let received = "";
    const reader = response.body!.getReader();
    await assert.rejects(async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        received += Buffer.from(value).toString();
      }
    });
    assert.equal(received, "event-0\nevent-1\n");

    server.faults.add({ route: "POST /work/:name", fault: { kind: "drop-mid-stream" } });
    const plain = await fetch(`${server.url}/work/a`, { method: "POST", body: "x" });
    assert.equal(plain.status, 201);
    await assert.rejects(plain.text());
    assert.equal(work, 2);
  });

  it("Connect unary: JSON in and out, errors as {code, message} with the matching status", async () => {
    const call = (message: unknown) =>
      fetch(`${server.url}/demo.Demo/Echo`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(message),
      });
    const ok = await call({ value: 7 });
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { echo: 7 });
    const failed = await call({ fail: true });
    assert.equal(failed.status, 404);
    assert.deepEqual(await failed.json(), { code: "not_found", message: "no such thing" });
    assert.equal(server.log.records[0]?.route, "rpc demo.Demo/Echo");
  });

  it("Connect server stream: enveloped messages closed by an end-stream message carrying any error", async () => {
    const call = async (message: unknown) => {
      const response = await fetch(`${server.url}/demo.Demo/Count`, {
        method: "POST",
        headers: { "content-type": "application/connect+json" },
        body: encodeEnvelope(0, Buffer.from(JSON.stringify(message))),
      });
      assert.equal(response.status, 200);
      return decodeEnvelopes(Buffer.from(await response.arrayBuffer())).map((frame) => [
        frame.flags,
        JSON.parse(frame.payload.toString()),
      ]);
    };
    assert.deepEqual(await call({ upTo: 2 }), [
      [0, { index: 0 }],
      [0, { index: 1 }],
      [2, {}],
    ]);
    assert.deepEqual(await call({ upTo: 1, fail: true }), [
      [0, { index: 0 }],
      [2, { error: { code: "aborted", message: "stopped" } }],
    ]);
  });

  it("stop() is idempotent and closes the port", async () => {
    const other = await EmulatorServer.start();
    const url = other.url;
    await Promise.all([other.stop(), other.stop()]);
    await assert.rejects(fetch(`${url}/anything`));
  });
});
