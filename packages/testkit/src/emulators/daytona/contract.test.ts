// The Daytona API's contract (README.md, "Contract"), one test per enforced row, sent as
// raw HTTP requests so that no SDK-side check hides what the emulator answers.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { waitFor } from "../../assertions/index.js";
import { deleteAll, emulatorFetch } from "./client.fixture.js";
import { type DaytonaEmulator, startDaytonaEmulator } from "./emulator.js";

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

describe("Daytona emulator contract (raw requests)", () => {
  let emulator: DaytonaEmulator;

  before(async () => {
    emulator = await startDaytonaEmulator({ pageSize: 200 });
  });

  after(() => emulator.stop());

  afterEach(() => deleteAll(emulator));

  async function send(method: string, path: string, body?: unknown): Promise<Answer> {
    const init: RequestInit = { method, headers: { "content-type": "application/json" } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await emulatorFetch(emulator, path, init);
    const text = await response.text();
    return { status: response.status, body: text === "" ? {} : JSON.parse(text) };
  }

  /** Asserts the API's error envelope: `{ statusCode, message, error, path, timestamp }`. */
  function assertError(answer: Answer, status: number, message: RegExp | string): void {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    assert.equal(answer.body.statusCode, status);
    assert.equal(typeof answer.body.error, "string");
    assert.equal(typeof answer.body.path, "string");
    assert.equal(typeof answer.body.timestamp, "string");
    if (typeof message === "string") assert.equal(answer.body.message, message);
    else assert.match(String(answer.body.message), message);
  }

  const create = async (body: Record<string, unknown> = {}) => {
    const answer = await send("POST", "/api/sandbox", { autoStopInterval: 0, ...body });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.id as string;
  };

  it("a missing or wrong bearer token is 401", async () => {
    const none = await fetch(`${emulator.url}/api/sandbox`);
    assert.equal(none.status, 401);
    const wrong = await fetch(`${emulator.url}/api/sandbox`, { headers: { authorization: "Bearer dtn_wrong" } });
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as { statusCode: number }).statusCode, 401);
  });

  it("list: limit is an integer from 1 to 200 (@PageLimit)", async () => {
    assertError(await send("GET", "/api/sandbox?limit=0"), 400, "limit must not be less than 1");
    assertError(await send("GET", "/api/sandbox?limit=201"), 400, "limit must not be greater than 200");
    assertError(await send("GET", "/api/sandbox?limit=2.5"), 400, "limit must be an integer number");
    assertError(await send("GET", "/api/sandbox?limit=many"), 400, "limit must be an integer number");
    assert.equal((await send("GET", "/api/sandbox?limit=200")).status, 200);
  });

  it("list: states must each be a SandboxState other than destroyed", async () => {
    assertError(await send("GET", "/api/sandbox?states=destroyed"), 400, /^each value must be one of the following/);
    assertError(await send("GET", "/api/sandbox?states=started&states=running"), 400, /^each value must be one/);
    assert.equal((await send("GET", "/api/sandbox?states=started&states=stopped")).status, 200);
  });

  it("list: labels is a JSON object of strings; a cursor must come from a previous page", async () => {
    assertError(await send("GET", "/api/sandbox?labels=owner%3Dme"), 400, /labels/);
    assertError(await send("GET", `/api/sandbox?labels=${encodeURIComponent('{"n":1}')}`), 400, /labels/);
    assertError(await send("GET", "/api/sandbox?cursor=not-a-cursor"), 400, /cursor/);
  });

  it("list: pages follow nextCursor; the last page's nextCursor is null; labels filter exactly", async () => {
    const ids = [await create({ labels: { k: "v" } }), await create({ labels: { k: "v" } }), await create()];
    const labels = encodeURIComponent(JSON.stringify({ k: "v" }));
    const first = await send("GET", `/api/sandbox?limit=1&labels=${labels}`);
    assert.equal((first.body.items as unknown[]).length, 1);
    assert.equal(typeof first.body.nextCursor, "string");
    const second = await send("GET", `/api/sandbox?limit=1&labels=${labels}&cursor=${first.body.nextCursor}`);
    assert.equal(second.body.nextCursor, null);
    const seen = [...(first.body.items as { id: string }[]), ...(second.body.items as { id: string }[])];
    assert.deepEqual(new Set(seen.map((entry) => entry.id)), new Set(ids.slice(0, 2)));
  });

  it("create: env and labels are objects of strings; resources need a build, not a snapshot", async () => {
    assertError(await send("POST", "/api/sandbox", { env: { A: 1 } }), 400, /env/);
    assertError(await send("POST", "/api/sandbox", { labels: ["x"] }), 400, /labels/);
    assertError(await send("POST", "/api/sandbox", { public: "yes" }), 400, /public/);
    assertError(await send("POST", "/api/sandbox", { snapshot: "s", cpu: 2 }), 400, /resources/);
    assert.equal(emulator.liveSandboxes().length, 0, "nothing refused was created");
  });

  it("an unknown sandbox is 404 to get, delete, start and stop", async () => {
    const message = "Sandbox with ID or name nope not found";
    assertError(await send("GET", "/api/sandbox/nope"), 404, message);
    assertError(await send("DELETE", "/api/sandbox/nope"), 404, message);
    assertError(await send("POST", "/api/sandbox/nope/start"), 404, message);
    assertError(await send("POST", "/api/sandbox/nope/stop"), 404, message);
  });

  it("a deleted sandbox answers destroying, then 404, and leaves the list", async () => {
    const id = await create();
    const deleted = await send("DELETE", `/api/sandbox/${id}`);
    assert.equal(deleted.status, 200);
    await waitFor(async () => (await send("GET", `/api/sandbox/${id}`)).status === 404, {
      timeoutMs: 10_000,
      what: "the deleted sandbox to answer 404",
    });
    assertError(await send("GET", `/api/sandbox/${id}`), 404, `Sandbox with ID or name ${id} not found`);
    const listed = (await send("GET", "/api/sandbox")).body.items as { id: string }[];
    assert.ok(!listed.some((entry) => entry.id === id));
  });

  it("start of a started sandbox and stop of a stopped one are 400", async () => {
    const id = await create();
    assertError(await send("POST", `/api/sandbox/${id}/start`), 400, "Sandbox is not in valid state");
    assert.equal((await send("POST", `/api/sandbox/${id}/stop`)).status, 200);
    await waitFor(async () => (await send("GET", `/api/sandbox/${id}`)).body.state === "stopped", {
      timeoutMs: 10_000,
      what: "the sandbox to stop",
    });
    assertError(await send("POST", `/api/sandbox/${id}/stop`), 400, "Sandbox is not started");
  });
});
