// The contract table of README.md, row by row: raw HTTP requests to the cloud
// API (no SDK, so nothing is checked client-side first) and the exact status
// and error envelope, `{ "error": { "code", "message" } }`, the API answers.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import { type MicrosandboxEmulator, startMicrosandboxEmulator } from "./emulator.js";

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** The create query the 0.6.18 SDK sends. */
const CREATE = "/v1/sandboxes?start=true&wait_for=running&wait_timeout=90";

describe("microsandbox emulator contract (README.md's table)", () => {
  let emulator: MicrosandboxEmulator;

  before(async () => {
    emulator = await startMicrosandboxEmulator();
  });

  after(() => emulator.stop());

  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) await call("DELETE", `/v1/sandboxes/${id}`);
  });

  async function call(method: string, path: string, body?: unknown, apiKey: string | null = emulator.apiKey) {
    const response = await fetch(`${emulator.apiUrl}${path}`, {
      method,
      headers: {
        ...(apiKey === null ? {} : { authorization: `Bearer ${apiKey}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
  }

  const spec = (fields: Record<string, unknown> = {}) => ({
    name: "contract",
    image: { type: "oci", reference: "alpine:3.21" },
    resources: { vcpus: 1, memory_mib: 512 },
    runtime: { workdir: null, shell: null, scripts: {}, entrypoint: null, cmd: null, user: null, log_level: null },
    env: [],
    labels: {},
    network: { enabled: true, strict: false },
    lifecycle: { ephemeral: false, max_duration_secs: 600, idle_timeout_secs: 120 },
    ...fields,
  });
  const create = (fields: Record<string, unknown> = {}, path = CREATE) => call("POST", path, spec(fields));

  function refused(answer: Answer, status: number, code: string, message?: RegExp): void {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    const error = answer.body.error as { code?: unknown; message?: unknown } | undefined;
    assert.equal(error?.code, code, JSON.stringify(answer.body));
    if (message) assert.match(String(error?.message), message);
  }

  it("every route needs `Authorization: Bearer <api key>`: 401 invalid_api_key", async () => {
    refused(await call("GET", "/v1/sandboxes", undefined, null), 401, "invalid_api_key");
    refused(await call("GET", "/v1/sandboxes", undefined, "msb_wrong"), 401, "invalid_api_key");
  });

  it("the SDK's own create body is accepted, and answers the types crate's required fields", async () => {
    const created = await create();
    assert.equal(created.status, 200, JSON.stringify(created.body));
    for (const field of ["id", "org_id", "name", "slug", "status", "ephemeral", "created_at"]) {
      assert.ok(field in created.body, field);
    }
  });

  it("name: 1 to 128 bytes; unique in the organisation (409 name_already_exists)", async () => {
    refused(await create({ name: "" }), 400, "invalid_request", /name/);
    refused(await create({ name: "x".repeat(129) }), 400, "invalid_request", /name/);
    assert.equal((await create({ name: "taken" })).status, 200);
    refused(await create({ name: "taken" }), 409, "name_already_exists");
  });

  it("resources: vcpus 1-255 (u8), memory_mib 1-4294967295 (u32)", async () => {
    for (const resources of [
      { vcpus: 0 },
      { vcpus: 256 },
      { vcpus: 1.5 },
      { memory_mib: 0 },
      { memory_mib: 2 ** 32 },
    ]) {
      refused(await create({ resources }), 400, "invalid_request", /resources\./);
    }
  });

  it("runtime and network deny unknown fields", async () => {
    refused(
      await create({ runtime: { workdir: "/w", hostname: "x" } }),
      400,
      "invalid_request",
      /unknown field `hostname`/,
    );
    refused(await create({ network: { enabled: true, dns: [] } }), 400, "invalid_request", /unknown field `dns`/);
  });

  it("image: an OCI reference", async () => {
    refused(await create({ image: { type: "oci", reference: "" } }), 400, "invalid_sandbox_config");
    refused(await create({ image: { type: "bind", path: "/" } }), 400, "invalid_sandbox_config");
  });

  it("runtime.workdir is absolute; env entries are {key, value} strings", async () => {
    refused(await create({ runtime: { workdir: "relative" } }), 400, "invalid_sandbox_config", /workdir/);
    refused(await create({ env: [{ key: "A", value: 1 }] }), 400, "invalid_request", /env/);
    refused(await create({ env: {} }), 400, "invalid_request", /env/);
  });

  it("create query: wait_for=running only, wait_timeout a non-negative integer with it, start true or false", async () => {
    refused(await create({}, "/v1/sandboxes?wait_for=stopped"), 400, "invalid_request", /wait_for/);
    refused(await create({}, "/v1/sandboxes?wait_for=running&wait_timeout=-1"), 400, "invalid_request");
    refused(await create({}, "/v1/sandboxes?wait_timeout=90"), 400, "invalid_request");
    refused(await create({}, "/v1/sandboxes?start=yes"), 400, "invalid_request", /start/);
  });

  it("list: limit 1-100 (the SDK sends 20), labels a JSON object of strings, cursor from next_cursor", async () => {
    refused(await call("GET", "/v1/sandboxes?limit=0"), 400, "invalid_request", /limit/);
    refused(await call("GET", "/v1/sandboxes?limit=101"), 400, "invalid_request", /limit/);
    refused(await call("GET", "/v1/sandboxes?labels=not-json"), 400, "invalid_request", /labels/);
    refused(await call("GET", `/v1/sandboxes?labels=${encodeURIComponent('{"a":1}')}`), 400, "invalid_request");
    refused(await call("GET", "/v1/sandboxes?cursor=%%%"), 400, "invalid_request", /cursor/);
    const listed = await call("GET", "/v1/sandboxes?limit=20");
    assert.equal(listed.status, 200);
    assert.deepEqual(Object.keys(listed.body).sort(), ["data", "has_more", "next_cursor"]);
  });

  it("an unknown or removed sandbox is 404 sandbox_not_found, by id and by name", async () => {
    refused(await call("GET", "/v1/sandboxes/by-name/nobody"), 404, "sandbox_not_found");
    const created = await create({ name: "gone" });
    const id = created.body.id as string;
    assert.equal((await call("DELETE", `/v1/sandboxes/${id}`)).status, 200);
    refused(await call("GET", `/v1/sandboxes/${id}`), 404, "sandbox_not_found");
    refused(await call("GET", "/v1/sandboxes/by-name/gone"), 404, "sandbox_not_found");
    refused(await call("DELETE", `/v1/sandboxes/${id}`), 404, "sandbox_not_found");
  });

  it("stop of a sandbox never started is 409 invalid_state_transition; the agent of a stopped one 409 sandbox_not_running", async () => {
    const idle = await create({ name: "never-started" }, "/v1/sandboxes?start=false");
    refused(await call("POST", `/v1/sandboxes/${idle.body.id as string}/stop`, {}), 409, "invalid_state_transition");
    const running = await create({ name: "will-stop" });
    const id = running.body.id as string;
    const stopped = await call("POST", `/v1/sandboxes/${id}/stop`, {});
    assert.equal(stopped.body.status, "stopped");
    const agentUrl = `${emulator.apiUrl.replace(/^http/, "ws")}/v1/sandboxes/${id}/agent`;
    const answer = await new Promise<Answer>((resolve, reject) => {
      const socket = new WebSocket(agentUrl, { headers: { authorization: `Bearer ${emulator.apiKey}` } });
      socket.on("unexpected-response", (_request, response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }),
        );
      });
      socket.on("open", () => {
        socket.terminate();
        reject(new Error("the agent of a stopped sandbox accepted the upgrade"));
      });
      socket.on("error", reject);
    });
    refused(answer, 409, "sandbox_not_running");
  });
});
