// The Freestyle API's contract (README.md, "Contract"), one test per enforced row, sent as
// raw HTTP requests so that no SDK-side check hides what the emulator answers.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { type FreestyleEmulator, startFreestyleEmulator } from "./emulator.js";

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

describe("Freestyle emulator contract (raw requests)", () => {
  let emulator: FreestyleEmulator;

  before(async () => {
    emulator = await startFreestyleEmulator({ pageSize: 1000 });
  });

  after(() => emulator.stop());

  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) await send("DELETE", `/v5/vms/${id}`);
  });

  async function send(method: string, path: string, body?: unknown, key = emulator.apiKey): Promise<Answer> {
    const init: RequestInit = {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await fetch(`${emulator.baseUrl}${path}`, init);
    const text = await response.text();
    return { status: response.status, body: text === "" ? {} : JSON.parse(text) };
  }

  /** Asserts the API's error body: `{ code, message }`, the message naming what was wrong. */
  function assertError(answer: Answer, status: number, code: string, message?: RegExp): void {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    assert.equal(answer.body.code, code);
    assert.equal(typeof answer.body.message, "string");
    if (message) assert.match(answer.body.message as string, message);
  }

  /** A create body: `firewall` is required; this one allows public egress (the local backend cannot cut the network). */
  const egress = { rules: [{ action: "allow", source: {}, destination: { public: true } }] };
  const vmBody = (extra: Record<string, unknown> = {}) => ({ firewall: egress, ...extra });
  const refusedCreate = (extra: Record<string, unknown>) => send("POST", "/v5/vms", vmBody(extra));

  const create = async (body: Record<string, unknown> = {}) => {
    const answer = await send("POST", "/v5/vms", vmBody(body));
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.id as string;
  };

  it("a wrong bearer token is 401 UNAUTHORIZED", async () => {
    assertError(await send("GET", "/v5/vms", undefined, "fs_wrong"), 401, "UNAUTHORIZED");
  });

  it("create: at most 64 metadata entries, keys and values at most 63 characters", async () => {
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, index) => [`k${index}`, "v"]));
    assertError(await refusedCreate({ metadata: many }), 400, "BAD_REQUEST", /metadata/);
    assertError(await refusedCreate({ metadata: { ["k".repeat(64)]: "v" } }), 400, "BAD_REQUEST", /metadata/);
    assertError(await refusedCreate({ metadata: { k: "v".repeat(64) } }), 400, "BAD_REQUEST", /metadata/);
    assertError(await refusedCreate({ metadata: { k: 1 } }), 400, "BAD_REQUEST", /metadata/);
    assertError(await send("POST", "/v5/vms", {}), 400, "BAD_REQUEST", /firewall is required/);
    assert.equal(emulator.liveSandboxes().length, 0, "nothing refused was created");
    const limits = Object.fromEntries(Array.from({ length: 64 }, (_, index) => [`k${index}`, "v".repeat(63)]));
    await create({ metadata: limits });
  });

  it("create: a slug is 1-63 of [a-z0-9-] without edge or repeated hyphens, and unique", async () => {
    for (const slug of ["-a", "a-", "a--b", "A", "a_b", "a".repeat(64)]) {
      assertError(await refusedCreate({ slug }), 400, "BAD_REQUEST", /slug/);
    }
    assertError(await refusedCreate({ reassignSlug: true }), 400, "BAD_REQUEST", /reassignSlug requires slug/);
    await create({ slug: "run-7f3a91c2" });
    assertError(await refusedCreate({ slug: "run-7f3a91c2" }), 409, "SLUG_TAKEN");
  });

  it("create: an unknown snapshot is 404 SNAPSHOT_NOT_FOUND", async () => {
    assertError(await refusedCreate({ snapshotId: "sn_nothing" }), 404, "SNAPSHOT_NOT_FOUND");
  });

  it("exec-await: command required; timeoutMs from 1 to 86 400 000; env keys POSIX names; stdin ≤ 1 MiB", async () => {
    const id = await create();
    const exec = (body: Record<string, unknown>) => send("POST", `/v5/vms/${id}/exec-await`, body);
    assertError(await exec({}), 400, "BAD_REQUEST", /command/);
    assertError(await exec({ command: "  " }), 400, "BAD_REQUEST", /command/);
    assertError(await exec({ command: "true", timeoutMs: 0 }), 400, "BAD_REQUEST", /timeoutMs/);
    assertError(await exec({ command: "true", timeoutMs: 86_400_001 }), 400, "BAD_REQUEST", /timeoutMs/);
    assertError(await exec({ command: "true", env: { "1BAD": "x" } }), 400, "BAD_REQUEST", /POSIX/);
    assertError(await exec({ command: "true", stdin: "not base64!" }), 400, "BAD_REQUEST", /stdin/);
    const big = Buffer.alloc(1024 * 1024 + 1).toString("base64");
    assertError(await exec({ command: "true", stdin: big }), 400, "BAD_REQUEST", /stdin may be at most/);
    assertError(await exec({ command: "true", linuxUser: "nobody-here" }), 404, "USER_NOT_FOUND");
    const ok = await exec({ command: "echo $A", env: { A: "x" } });
    assert.deepEqual([ok.status, ok.body.stdout, ok.body.statusCode], [200, "x\n", 0]);
  });

  it("exec-await: a command killed by its timeout has statusCode null", async () => {
    const id = await create();
    const killed = await send("POST", `/v5/vms/${id}/exec-await`, { command: "sleep 30", timeoutMs: 200 });
    assert.equal(killed.status, 200);
    assert.equal(killed.body.statusCode, null);
  });

  it("list: limit and offset are integers in range; state is a VmState; metadata is key:value pairs", async () => {
    assertError(await send("GET", "/v5/vms?limit=0"), 400, "BAD_REQUEST", /limit/);
    assertError(await send("GET", "/v5/vms?limit=ten"), 400, "BAD_REQUEST", /limit/);
    assertError(await send("GET", "/v5/vms?offset=-1"), 400, "BAD_REQUEST", /offset/);
    assertError(await send("GET", "/v5/vms?state=sleeping"), 400, "BAD_REQUEST", /state/);
    assertError(await send("GET", "/v5/vms?metadata=novalue"), 400, "BAD_REQUEST", /key:value/);
  });

  it("list: limit/offset pages with totalCount; metadata filters every pair", async () => {
    const ids = [
      await create({ metadata: { k: "v", n: "1" } }),
      await create({ metadata: { k: "v" } }),
      await create(),
    ];
    const first = await send("GET", "/v5/vms?limit=1&offset=0&metadata=k:v");
    assert.equal(first.body.totalCount, 2);
    assert.equal((first.body.vms as unknown[]).length, 1);
    const second = await send("GET", "/v5/vms?limit=1&offset=1&metadata=k:v");
    const seen = [...(first.body.vms as { id: string }[]), ...(second.body.vms as { id: string }[])];
    assert.deepEqual(new Set(seen.map((vm) => vm.id)), new Set(ids.slice(0, 2)));
    const both = await send("GET", "/v5/vms?metadata=k:v,n:1");
    assert.deepEqual(
      (both.body.vms as { id: string }[]).map((vm) => vm.id),
      [ids[0]],
    );
  });

  it("a deleted VM is 404 VM_NOT_FOUND to get, exec, delete and start, and gone from the list", async () => {
    const id = await create();
    assert.equal((await send("DELETE", `/v5/vms/${id}`)).status, 204);
    assertError(await send("GET", `/v5/vms/${id}`), 404, "VM_NOT_FOUND");
    assertError(await send("POST", `/v5/vms/${id}/exec-await`, { command: "true" }), 404, "VM_NOT_FOUND");
    assertError(await send("DELETE", `/v5/vms/${id}`), 404, "VM_NOT_FOUND");
    assertError(await send("POST", `/v5/vms/${id}/start`, {}), 404, "VM_NOT_FOUND");
    const listed = (await send("GET", "/v5/vms")).body.vms as { id: string }[];
    assert.ok(!listed.some((vm) => vm.id === id));
  });
});
