// Faults on the Kubernetes emulator's three surfaces, one request log: an API route answers a
// Status with the injected code, a router route its {detail} shape, a gRPC method the gRPC code
// for the HTTP status; each applies to the next matching request only.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type * as grpc from "@grpc/grpc-js";
import {
  api,
  claimReady,
  EXT,
  processClient,
  processConfig,
  routing,
  routingMetadata,
  startRequest,
  startStream,
  unary,
} from "./client.fixture.js";
import { type KubernetesEmulator, startKubernetesEmulator } from "./emulator.js";
import { kubernetesEmulatorSkipReason } from "./pod-workspace.js";

import { ProtoWriter } from "./protobuf.js";

/** The emulator needs pods with their own `/workspace` (see `kubernetesEmulatorSkipReason`). */
const skip = await kubernetesEmulatorSkipReason();

describe("Kubernetes emulator: faults and the request log", { skip }, () => {
  let emulator: KubernetesEmulator;
  let client: grpc.Client;
  let sandbox: string;
  before(async () => {
    emulator = await startKubernetesEmulator({ warmPools: [{ name: "pool", template: "sandboxd" }] });
    client = processClient(emulator);
    sandbox = (await claimReady(emulator, { metadata: { name: "faulty" }, spec: { warmPoolRef: { name: "pool" } } }))
      .status.sandbox.name;
  });
  after(async () => {
    client?.close();
    await emulator.stop();
  });

  test("an API status fault is a Status with that code, once; the work is not done", async () => {
    const route = "POST /apis/extensions.agents.x-k8s.io/v1beta1/namespaces/:namespace/sandboxclaims";
    emulator.resetRequests();
    emulator.injectFault({ route, fault: { kind: "status", status: 503 } });
    const body = { metadata: { name: "later" }, spec: { warmPoolRef: { name: "pool" } } };
    const refused = await api(emulator, `${EXT}/sandboxclaims`, { method: "POST", body });
    assert.equal(refused.status, 503);
    assert.equal(refused.body.kind, "Status");
    assert.equal((await api(emulator, `${EXT}/sandboxclaims/later`)).status, 404);
    assert.equal((await api(emulator, `${EXT}/sandboxclaims`, { method: "POST", body })).status, 201);
    assert.equal(emulator.requestCount(route), 2);
  });

  test("a router fault answers {detail}; a gRPC fault is the mapped gRPC code; both are in the one log", async () => {
    emulator.injectFault({ route: "router GET /v1/files/*", fault: { kind: "status", status: 502 } });
    const failed = await fetch(`${emulator.routerUrl}/v1/files/x`, { headers: routing(sandbox, 8080) });
    assert.equal(failed.status, 502);
    assert.ok(((await failed.json()) as { detail: string }).detail.includes("injected"));
    emulator.injectFault({ route: "rpc process.v1.ProcessService/Execute", fault: { kind: "status", status: 503 } });
    const execute = () =>
      unary(
        client,
        "Execute",
        new ProtoWriter().bytes(1, processConfig(["echo", "hi"])).finish(),
        routingMetadata(sandbox),
      );
    await assert.rejects(execute(), (error: grpc.ServiceError) => error.code === 14);
    assert.equal((await execute()).string(2), "hi\n");
    assert.equal(emulator.requestCount("rpc process.v1.ProcessService/Execute"), 2);
    assert.equal(emulator.requestCount("router GET /v1/files/*"), 1);
  });

  test("a gRPC stream cut after its first message ends the call with an error", async () => {
    emulator.injectFault({
      route: "rpc process.v1.ProcessService/Start",
      fault: { kind: "drop-mid-stream", afterEvents: 1 },
    });
    const kinds: string[] = [];
    const { done } = startStream(
      client,
      startRequest(["sh", "-c", "echo one; echo two"]),
      routingMetadata(sandbox),
      (event) => kinds.push(event.kind),
    );
    await assert.rejects(done);
    assert.deepEqual(kinds, ["init"]);
  });
});
