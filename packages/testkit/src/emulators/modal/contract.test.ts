// The contract table of README.md, row by row. Requests go through the real
// SDK's control-plane client (`cpClient`, the SDK's own codecs, auth and
// transport) but skip its client-side checks, so each answer is the emulator's:
// a gRPC status code and the details Modal gives. Router calls go through
// nice-grpc (the SDK's own gRPC client) with the SDK's service definition.

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, afterEach, before, describe, it } from "node:test";
import { LocalRuntime } from "@sandport/local";
import { type ModalEmulator, startModalEmulator } from "./emulator.js";
import { ARG_MAX_BYTES } from "./request-rules.js";
import { clientFor, loadModal, type ModalClient } from "./sdk.fixture.js";
import { loadModalWire } from "./wire-definitions.js";

type App = Awaited<ReturnType<ModalClient["apps"]["fromName"]>>;

/** The part of the SDK's hidden control-plane client these tests call. */
interface ControlPlane {
  sandboxCreateV2(request: Record<string, unknown>): Promise<{ sandboxId: string }>;
  sandboxTerminateV2(request: Record<string, unknown>): Promise<unknown>;
  sandboxGetTaskIdV2(request: Record<string, unknown>): Promise<{ taskId?: string; taskResult?: { status: number } }>;
  sandboxListV2(request: Record<string, unknown>): Promise<{ sandboxes: { id: string }[] }>;
  sandboxGetCommandRouterAccess(request: Record<string, unknown>): Promise<{ url: string; jwt: string }>;
}

/** The command router, as a nice-grpc client of the SDK's own service definition. */
type Router = Record<string, (request: Record<string, unknown>, options?: unknown) => Promise<unknown>>;

/** nice-grpc as the SDK resolves it (its dependency, not the testkit's). */
interface NiceGrpc {
  createChannel(address: string): { close(): void };
  createClient(definition: unknown, channel: unknown): Router;
  Metadata: new (init: Record<string, string>) => unknown;
}

const STATUS = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  FAILED_PRECONDITION: 9,
  UNAUTHENTICATED: 16,
} as const;

/** Resolves the gRPC status code and details a call failed with. */
async function failure(call: Promise<unknown>): Promise<{ code: number; details: string }> {
  const error = await call.then(
    () => assert.fail("the call must fail"),
    (caught: unknown) => caught as { code?: number; details?: string },
  );
  return { code: error.code ?? -1, details: error.details ?? "" };
}

describe("Modal emulator contract (README.md's table)", () => {
  let emulator: ModalEmulator;
  let client: ModalClient;
  let app: App;
  let imageId: string;
  let cp: ControlPlane;

  before(async () => {
    const modal = await loadModal();
    emulator = await startModalEmulator({ backend: new LocalRuntime({ isolation: "none" }) });
    client = clientFor(modal, emulator).client;
    app = await client.apps.fromName("contract", { createIfMissing: true });
    imageId = (await client.images.fromRegistry("alpine:3.21").build(app)).imageId;
    cp = (client as unknown as { cpClient: ControlPlane }).cpClient;
  });

  after(() => emulator.stop());

  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes())
      await cp.sandboxTerminateV2({ sandboxId: id }).catch(() => undefined);
  });

  const create = (definition: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    cp.sandboxCreateV2({ appId: app.appId, definition: { imageId, timeoutSecs: 60, ...definition }, ...extra });

  it("timeoutSecs: 1 to 86 400; absent is Modal's default of 300", async () => {
    for (const timeoutSecs of [86_401, 100_000]) {
      const refused = await failure(create({ timeoutSecs }));
      assert.equal(refused.code, STATUS.INVALID_ARGUMENT, refused.details);
    }
    const { sandboxId } = await cp.sandboxCreateV2({ appId: app.appId, definition: { imageId } });
    const listed = await cp.sandboxListV2({ appId: app.appId });
    assert.ok(listed.sandboxes.some((sandbox) => sandbox.id === sandboxId));
    const info = (listed.sandboxes as unknown as { id: string; timeoutSecs: number }[]).find(
      (sandbox) => sandbox.id === sandboxId,
    );
    assert.equal(info?.timeoutSecs, 300);
  });

  it("idleTimeoutSecs: positive when set", async () => {
    const refused = await failure(create({ idleTimeoutSecs: 0 }));
    assert.equal(refused.code, STATUS.INVALID_ARGUMENT);
    assert.match(refused.details, /idleTimeout must be positive/);
    await create({ idleTimeoutSecs: 30 });
  });

  it("name: at most 64 of [a-zA-Z0-9-_.], not an App id; unique among the App's running sandboxes", async () => {
    for (const name of ["has space", "x".repeat(65), "slash/ed", `ap-${"a".repeat(22)}`]) {
      const refused = await failure(create({ name }));
      assert.equal(refused.code, STATUS.INVALID_ARGUMENT, name);
      assert.match(refused.details, /Invalid Sandbox name/);
    }
    await create({ name: "n".repeat(64) });
    await create({ name: "unique.name_1-x" });
    const taken = await failure(create({ name: "unique.name_1-x" }));
    assert.equal(taken.code, STATUS.ALREADY_EXISTS);
  });

  it("env names: letters, digits and underscores, not starting with a digit", async () => {
    const refused = await failure(create({}, { secretSources: [{ env: { contents: { "1BAD": "x" } } }] }));
    assert.equal(refused.code, STATUS.INVALID_ARGUMENT);
    assert.match(refused.details, /invalid for environment variables/);
  });

  it("an unknown image, app or secret is NOT_FOUND", async () => {
    assert.equal((await failure(create({ imageId: "im-missing" }))).code, STATUS.NOT_FOUND);
    assert.equal(
      (await failure(cp.sandboxCreateV2({ appId: "ap-missing", definition: { imageId } }))).code,
      STATUS.NOT_FOUND,
    );
    assert.equal((await failure(create({ secretIds: ["st-missing"] }))).code, STATUS.NOT_FOUND);
  });

  it("a terminated sandbox: its task id call answers its result, tag writes are FAILED_PRECONDITION, an unknown id NOT_FOUND", async () => {
    const { sandboxId } = await create();
    await cp.sandboxTerminateV2({ sandboxId });
    const task = await cp.sandboxGetTaskIdV2({ sandboxId });
    assert.equal(task.taskId ?? "", "");
    assert.equal(task.taskResult?.status, 3, "GENERIC_STATUS_TERMINATED");
    const tags = cp as unknown as { sandboxTagsSetV2(request: Record<string, unknown>): Promise<unknown> };
    assert.equal(
      (await failure(tags.sandboxTagsSetV2({ sandboxId, tags: [{ tagName: "a", tagValue: "1" }] }))).code,
      STATUS.FAILED_PRECONDITION,
    );
    assert.equal((await failure(cp.sandboxGetTaskIdV2({ sandboxId: "sb-missing" }))).code, STATUS.NOT_FOUND);
  });

  it("a terminated sandbox is left out of listings unless includeFinished", async () => {
    const { sandboxId } = await create();
    await cp.sandboxTerminateV2({ sandboxId });
    assert.ok(!(await cp.sandboxListV2({ appId: app.appId })).sandboxes.some((entry) => entry.id === sandboxId));
    const all = await cp.sandboxListV2({ appId: app.appId, includeFinished: true });
    assert.ok(all.sandboxes.some((entry) => entry.id === sandboxId));
  });

  /** Raw calls to the command router for a new sandbox's task, with its router token (or `token`). */
  async function routerFor(token?: string) {
    const { sandboxId } = await create();
    const { taskId } = await cp.sandboxGetTaskIdV2({ sandboxId });
    const access = await cp.sandboxGetCommandRouterAccess({ sandboxId });
    const grpc = createRequire(createRequire(import.meta.url).resolve("modal"))("nice-grpc") as NiceGrpc;
    const channel = grpc.createChannel(access.url.replace(/^https:/, "http:"));
    const router = grpc.createClient((await loadModalWire()).commandRouter, channel);
    const metadata = new grpc.Metadata({ authorization: `Bearer ${token ?? access.jwt}` });
    const start = (request: Record<string, unknown>) =>
      router.taskExecStart?.({ taskId, ...request }, { metadata }) as Promise<unknown>;
    return { sandboxId, start, close: () => channel.close() };
  }

  it("TaskExecStart: execId and commandArgs required; one execId is one exec", async () => {
    const router = await routerFor();
    try {
      assert.equal((await failure(router.start({ commandArgs: ["true"] }))).code, STATUS.INVALID_ARGUMENT);
      assert.equal((await failure(router.start({ execId: "e1", commandArgs: [] }))).code, STATUS.INVALID_ARGUMENT);
      await router.start({ execId: "e1", commandArgs: ["true"] });
      await router.start({ execId: "e1", commandArgs: ["true"] }); // a retried start is the same exec
      assert.equal((await failure(router.start({ execId: "e1", commandArgs: ["false"] }))).code, STATUS.ALREADY_EXISTS);
    } finally {
      router.close();
    }
  });

  it("TaskExecStart: arguments together at most 65 536 bytes (ARG_MAX)", async () => {
    const router = await routerFor();
    try {
      const refused = await failure(
        router.start({ execId: "big", commandArgs: ["sh", "-c", `: ${"x".repeat(ARG_MAX_BYTES)}`] }),
      );
      assert.equal(refused.code, STATUS.INVALID_ARGUMENT);
      assert.match(refused.details, /ARG_MAX/);
      await router.start({ execId: "fits", commandArgs: ["sh", "-c", `: ${"x".repeat(ARG_MAX_BYTES - 10)}`] });
    } finally {
      router.close();
    }
  });

  it("TaskExecStart: env names are checked like the sandbox's", async () => {
    const router = await routerFor();
    try {
      const refused = await failure(router.start({ execId: "env", commandArgs: ["true"], env: { "1BAD": "x" } }));
      assert.equal(refused.code, STATUS.INVALID_ARGUMENT);
      assert.match(refused.details, /invalid for environment variables/);
    } finally {
      router.close();
    }
  });

  it("the router refuses a token that is not the task's, and the task of a finished sandbox", async () => {
    const forged = await routerFor("not-a-jwt");
    try {
      assert.equal((await failure(forged.start({ execId: "x", commandArgs: ["true"] }))).code, STATUS.UNAUTHENTICATED);
    } finally {
      forged.close();
    }
    const router = await routerFor();
    try {
      await cp.sandboxTerminateV2({ sandboxId: router.sandboxId });
      assert.equal((await failure(router.start({ execId: "late", commandArgs: ["true"] }))).code, STATUS.NOT_FOUND);
    } finally {
      router.close();
    }
  });
});
