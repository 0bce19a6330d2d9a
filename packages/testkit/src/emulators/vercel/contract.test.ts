// The contract table of README.md, row by row: raw HTTP requests (no SDK, so
// nothing is checked client-side first) and the exact status and error body
// the Vercel API answers with.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { startVercelEmulator, type VercelEmulator } from "./emulator.js";

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

describe("Vercel emulator contract (README.md's table)", () => {
  let emulator: VercelEmulator;

  before(async () => {
    emulator = await startVercelEmulator();
  });

  after(() => emulator.stop());

  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) await call("DELETE", `/v2/sandboxes/${id}?projectId=${projectId()}`);
  });

  const projectId = () => emulator.credentials.projectId;

  /** One request with the emulator's credentials unless `auth` overrides them. */
  async function call(
    method: string,
    path: string,
    body?: unknown,
    auth: { token?: string | null; teamId?: string } = {},
  ): Promise<Answer> {
    const teamId = auth.teamId ?? emulator.credentials.teamId;
    const url = `${emulator.baseUrl}${path}${path.includes("?") ? "&" : "?"}teamId=${teamId}`;
    const token = auth.token === undefined ? emulator.credentials.token : auth.token;
    const response = await emulator.fetch(url, {
      method,
      headers: {
        "content-type": "application/json",
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
  }

  const create = (fields: Record<string, unknown> = {}, path = "/v3/sandboxes") =>
    call("POST", path, { projectId: projectId(), timeout: 60_000, ...fields });

  /** Asserts Vercel's error envelope `{ error: { code, message } }` with this status and code. */
  function refused(answer: Answer, status: number, code: string, message?: RegExp): void {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    const error = answer.body.error as { code?: unknown; message?: unknown } | undefined;
    assert.equal(error?.code, code, JSON.stringify(answer.body));
    assert.equal(typeof error?.message, "string");
    if (message) assert.match(String(error?.message), message);
  }

  it("credentials: no token, a wrong token and a foreign team are 403 forbidden (missingToken / invalidToken)", async () => {
    const missing = await call("GET", `/v2/sandboxes/x?projectId=${projectId()}`, undefined, { token: null });
    refused(missing, 403, "forbidden");
    assert.equal((missing.body.error as Record<string, unknown>).missingToken, true);
    const wrong = await call("GET", `/v2/sandboxes/x?projectId=${projectId()}`, undefined, { token: "vcp_wrong" });
    refused(wrong, 403, "forbidden");
    assert.equal((wrong.body.error as Record<string, unknown>).invalidToken, true);
    refused(
      await call("GET", `/v2/sandboxes/x?projectId=${projectId()}`, undefined, { teamId: "team_other" }),
      403,
      "forbidden",
    );
  });

  it("projectId: absent is 400 bad_request, unknown is 404 not_found", async () => {
    refused(await call("POST", "/v3/sandboxes", { timeout: 60_000 }), 400, "bad_request", /projectId/);
    refused(await call("POST", "/v3/sandboxes", { projectId: "prj_other" }), 404, "not_found");
  });

  it("create body: JSON object only", async () => {
    refused(await call("POST", "/v3/sandboxes", "{not json"), 400, "bad_request");
    refused(await call("POST", "/v3/sandboxes", "[1]"), 400, "bad_request");
  });

  it("resources.vcpus: an integer from 1 to 8, and 1 or an even number", async () => {
    for (const vcpus of [0, 3, 5, 7, 9, 10, 2.5, "2"]) {
      refused(await create({ resources: { vcpus } }), 400, "bad_request", /vcpus/);
    }
    for (const vcpus of [1, 2, 4, 6, 8]) {
      const created = await create({ resources: { vcpus } });
      assert.equal(created.status, 200, `${vcpus} vCPUs: ${JSON.stringify(created.body)}`);
      assert.equal((created.body.session as Record<string, unknown>).vcpus, vcpus);
    }
  });

  it("resources.vcpus defaults to 2 and timeout to 5 minutes", async () => {
    const created = await call("POST", "/v3/sandboxes", { projectId: projectId() });
    assert.equal(created.status, 200);
    const session = created.body.session as Record<string, unknown>;
    assert.deepEqual([session.vcpus, session.timeout], [2, 300_000]);
  });

  it("timeout: an integer of milliseconds from 1 to 24 hours", async () => {
    for (const timeout of [0, -1, 24 * 60 * 60 * 1000 + 1, 1.5]) {
      refused(await create({ timeout }), 400, "bad_request", /timeout/);
    }
  });

  it("list: limit is an integer from 1 to 50; namePrefix only with sortBy=name", async () => {
    const list = (query: string) => call("GET", `/v2/sandboxes?project=${projectId()}&${query}`);
    for (const limit of ["0", "51", "100", "1.5", "x"])
      refused(await list(`limit=${limit}`), 400, "bad_request", /limit/);
    for (const limit of ["1", "50"]) assert.equal((await list(`limit=${limit}`)).status, 200, `limit ${limit}`);
    refused(await list("namePrefix=sandport-"), 400, "bad_request", /namePrefix.*sortBy=name/);
    refused(await list("namePrefix=sandport-&sortBy=createdAt"), 400, "bad_request", /namePrefix.*sortBy=name/);
    assert.equal((await list("namePrefix=sandport-&sortBy=name")).status, 200);
    assert.equal((await list("sortBy=name")).status, 200, "sortBy=name alone is fine");
  });

  it("tags: at most 5, string values", async () => {
    const six = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`k${i}`, "v"]));
    refused(await create({ tags: six }), 400, "bad_request", /at most 5 tags/);
    refused(await create({ tags: { a: 1 } }), 400, "bad_request", /tags\.a/);
    const five = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`k${i}`, "v"]));
    assert.equal((await create({ tags: five })).status, 200);
  });

  it("ports: at most 15, each an integer from 1024 to 65535, none repeated", async () => {
    const sixteen = Array.from({ length: 16 }, (_, i) => 3000 + i);
    refused(await create({ ports: sixteen }), 400, "bad_request", /at most 15 ports/);
    refused(await create({ ports: [80] }), 400, "bad_request", /1024 to 65535/);
    refused(await create({ ports: [65536] }), 400, "bad_request", /1024 to 65535/);
    refused(await create({ ports: [3000, 3000] }), 400, "bad_request", /repeat/);
  });

  it("name: the API's characters, not a reserved path segment, unique in the project", async () => {
    refused(await create({ name: "has space" }), 400, "bad_request", /not a valid sandbox name/);
    refused(await create({ name: "sessions" }), 400, "bad_request", /not a valid sandbox name/);
    refused(await create({ name: "x".repeat(129) }), 400, "bad_request", /not a valid sandbox name/);
    assert.equal((await create({ name: "taken" })).status, 200);
    refused(await create({ name: "taken" }), 400, "bad_request", /already exists/);
  });

  it("image and runtime: never together; runtime only on POST /v2/sandboxes", async () => {
    refused(await create({ image: "a", runtime: "node24" }, "/v2/sandboxes"), 400, "bad_request", /together/);
    refused(await create({ runtime: "node24" }), 400, "bad_request", /runtime/);
  });

  it("failoverRegions: must not include the sandbox's region", async () => {
    refused(await create({ region: "iad1", failoverRegions: ["iad1"] }), 400, "bad_request", /iad1/);
  });

  it("a missing or deleted sandbox is 404 not_found; a stopped session is 410 sandbox_stopped, an unknown one 404", async () => {
    refused(await call("GET", `/v2/sandboxes/nobody?projectId=${projectId()}`), 404, "not_found");
    const created = await create({ name: "short-lived" });
    const sessionId = (created.body.session as Record<string, unknown>).id as string;
    const stopped = await call("POST", `/v2/sandboxes/sessions/${sessionId}/stop`, {});
    assert.equal(stopped.status, 200);
    refused(await call("POST", `/v2/sandboxes/sessions/${sessionId}/cmd`, { command: "true" }), 410, "sandbox_stopped");
    assert.equal((await call("DELETE", `/v2/sandboxes/short-lived?projectId=${projectId()}`)).status, 200);
    refused(await call("GET", `/v2/sandboxes/short-lived?projectId=${projectId()}`), 404, "not_found");
    refused(await call("DELETE", `/v2/sandboxes/short-lived?projectId=${projectId()}`), 404, "not_found");
    refused(await call("POST", `/v2/sandboxes/sessions/${sessionId}/cmd`, { command: "true" }), 404, "not_found");
    refused(await call("POST", "/v2/sandboxes/sessions/sbx_unknown/cmd", { command: "true" }), 404, "not_found");
  });

  it("a command needs a command, string args, and a timeout of at most 24 hours", async () => {
    const created = await create();
    const sessionId = (created.body.session as Record<string, unknown>).id as string;
    const cmd = (body: unknown) => call("POST", `/v2/sandboxes/sessions/${sessionId}/cmd`, body);
    refused(await cmd({}), 400, "bad_request", /command is required/);
    refused(await cmd({ command: "echo", args: [1] }), 400, "bad_request", /args/);
    refused(await cmd({ command: "true", timeout: 0 }), 400, "bad_request", /timeout/);
  });

  it("extend-timeout: a positive duration that keeps the session within 24 hours", async () => {
    const created = await create();
    const sessionId = (created.body.session as Record<string, unknown>).id as string;
    const extend = (duration: unknown) =>
      call("POST", `/v2/sandboxes/sessions/${sessionId}/extend-timeout`, { duration });
    refused(await extend(0), 400, "bad_request", /duration/);
    refused(await extend(24 * 60 * 60 * 1000), 400, "bad_request", /at most/);
    const extended = await extend(60_000);
    assert.equal(extended.status, 200);
    assert.equal((extended.body.session as Record<string, unknown>).timeout, 120_000);
  });
});
