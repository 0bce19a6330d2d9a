// The E2B control plane's contract (README.md, "Contract"), one test per enforced row,
// sent as raw HTTP requests so that no SDK-side check hides what the emulator answers.

import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { DEFAULT_TEMPLATE_SIZE, type E2BEmulator, startE2BEmulator } from "./emulator.js";

interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
}

/** A template configured bigger than the default, so its sandboxes' sizes can only come from it. */
const LARGE = { cpuCount: 8, memoryMB: 16_384, diskSizeMB: 20_480 };

describe("E2B emulator contract (raw requests)", () => {
  let emulator: E2BEmulator;

  before(async () => {
    emulator = await startE2BEmulator({ pageSize: 100, templates: { large: LARGE } });
  });

  after(() => emulator.stop());

  afterEach(async () => {
    for (const { id } of emulator.liveSandboxes()) await send("DELETE", `/sandboxes/${id}`);
  });

  async function send(method: string, path: string, body?: unknown, key = emulator.apiKey): Promise<Answer> {
    const init: RequestInit = { method, headers: { "x-api-key": key, "content-type": "application/json" } };
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
    const response = await fetch(`${emulator.apiUrl}${path}`, init);
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers };
  }

  /** Asserts E2B's `Error` body: `{ code: <status>, message }`, the message matching `message`. */
  function assertError(answer: Answer, status: number, message: RegExp | string): void {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    const body = answer.body as { code: unknown; message: unknown };
    assert.equal(body.code, status);
    assert.equal(typeof body.message, "string");
    if (typeof message === "string") assert.equal(body.message, message);
    else assert.match(body.message as string, message);
  }

  const create = async (extra: Record<string, unknown> = {}) => {
    const answer = await send("POST", "/v2/sandboxes", { templateID: "base", timeout: 600, ...extra });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return (answer.body as { sandboxID: string }).sandboxID;
  };

  const lifetimeSeconds = async (id: string) => {
    const detail = (await send("GET", `/sandboxes/${id}`)).body as { startedAt: string; endAt: string };
    return (Date.parse(detail.endAt) - Date.parse(detail.startedAt)) / 1000;
  };

  it("a wrong or missing X-API-KEY is 401 with an Error body", async () => {
    assertError(await send("GET", "/v2/sandboxes", undefined, "e2b_wrong"), 401, /API key/);
    assertError(await send("POST", "/v2/sandboxes", { templateID: "base" }, ""), 401, /API key/);
  });

  it("create: the body and templateID are required", async () => {
    assertError(await send("POST", "/v2/sandboxes"), 400, /^validation error: .*required/);
    assertError(await send("POST", "/v2/sandboxes", { timeout: 60 }), 400, /^validation error: .*templateID/);
    assertError(await send("POST", "/v2/sandboxes", { templateID: 7 }), 400, /^validation error: .*templateID/);
    assertError(await send("POST", "/v2/sandboxes", "{not json"), 400, /^validation error: /);
    assertError(await send("POST", "/v2/sandboxes", { templateID: "" }), 400, /^Invalid template reference/);
  });

  it("create: timeout is an int32 ≥ 0, greater than 0 and at most 24 hours", async () => {
    const refused = (timeout: unknown) => send("POST", "/v2/sandboxes", { templateID: "base", timeout });
    assertError(await refused(-1), 400, /^validation error: .*at least 0/);
    assertError(await refused(1.5), 400, /^validation error: .*int32/);
    assertError(await refused("60"), 400, /^validation error: .*int32/);
    assertError(await refused(0), 400, "Timeout must be greater than 0");
    assertError(await refused(86_401), 400, "Timeout cannot be greater than 24 hours");
    assert.equal(await lifetimeSeconds(await create({ timeout: 86_400 })), 86_400);
    assert.equal(emulator.liveSandboxes().length, 1, "nothing refused was created");
  });

  it("create: timeout defaults to 300 s on /v2/sandboxes and 15 s on /sandboxes", async () => {
    const v2 = await send("POST", "/v2/sandboxes", { templateID: "base" });
    assert.equal(await lifetimeSeconds((v2.body as { sandboxID: string }).sandboxID), 300);
    const v1 = await send("POST", "/sandboxes", { templateID: "base" });
    assert.equal(v1.status, 201);
    assert.equal(await lifetimeSeconds((v1.body as { sandboxID: string }).sandboxID), 15);
  });

  it("create: metadata and envVars are maps of strings; flags are booleans", async () => {
    const refused = (extra: Record<string, unknown>) => send("POST", "/v2/sandboxes", { templateID: "base", ...extra });
    assertError(await refused({ metadata: { n: 1 } }), 400, /^validation error: .*\/metadata\/n/);
    assertError(await refused({ metadata: ["a"] }), 400, /^validation error: .*\/metadata/);
    assertError(await refused({ envVars: { A: true } }), 400, /^validation error: .*\/envVars\/A/);
    assertError(await refused({ autoPause: "yes" }), 400, /^validation error: .*autoPause/);
    assertError(await refused({ allow_internet_access: 1 }), 400, /^validation error: .*allow_internet_access/);
    assertError(await refused({ network: null }), 400, /^validation error: .*network/);
    assertError(await refused({ network: { allowPublicTraffic: "no" } }), 400, /allowPublicTraffic/);
    assert.equal(emulator.liveSandboxes().length, 0);
  });

  it("network.allowOut and denyOut: arrays of strings; IPs, CIDR blocks and (allowOut only) domains", async () => {
    const refused = (network: unknown) => send("POST", "/v2/sandboxes", { templateID: "base", network });
    assertError(await refused({ allowOut: "example.com" }), 400, /^validation error: .*"\/network\/allowOut".*array/);
    assertError(await refused({ denyOut: [1] }), 400, /^validation error: .*"\/network\/denyOut\/0".*string/);
    assertError(await refused({ denyOut: ["example.com"] }), 400, /invalid denyOut entry "example.com"/);
    assertError(await refused({ allowOut: ["not a host"] }), 400, /invalid allowOut entry "not a host"/);
    assertError(await refused({ allowOut: ["10.0.0.0/33"] }), 400, /invalid allowOut entry/);
    assert.equal(emulator.liveSandboxes().length, 0);
    // A deny list that is not a deny-all is valid for E2B, but the backend cannot enforce it.
    assertError(await refused({ denyOut: ["8.8.8.8"] }), 500, /sandbox could not be created: .*deny list/);
    assert.equal(emulator.liveSandboxes().length, 0);
  });

  it("the detail reports allowInternetAccess and the network rules as created", async () => {
    // Nothing denied, so any backend can run it (allowOut alone restricts nothing).
    const id = await create({ network: { allowPublicTraffic: false, allowOut: ["1.1.1.1"] } });
    const detail = (await send("GET", `/sandboxes/${id}`)).body as Record<string, unknown>;
    assert.equal(detail.allowInternetAccess, true);
    assert.deepEqual(detail.network, { allowPublicTraffic: false, allowOut: ["1.1.1.1"] });
  });

  it("the detail and the list report a sandbox's sizes: its template's, never the create's; the create's answer has none", async () => {
    const created = await send("POST", "/v2/sandboxes", {
      templateID: "large",
      timeout: 600,
      cpuCount: 1,
      memoryMB: 128,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const body = created.body as Record<string, unknown>;
    for (const field of ["cpuCount", "memoryMB", "diskSizeMB"]) assert.equal(field in body, false, field);
    const large = body.sandboxID as string;
    const base = await create();
    const sizes = (entry: Record<string, unknown>) => ({
      cpuCount: entry.cpuCount,
      memoryMB: entry.memoryMB,
      diskSizeMB: entry.diskSizeMB,
    });
    assert.deepEqual(sizes((await send("GET", `/sandboxes/${large}`)).body as Record<string, unknown>), LARGE);
    assert.deepEqual(
      sizes((await send("GET", `/sandboxes/${base}`)).body as Record<string, unknown>),
      DEFAULT_TEMPLATE_SIZE,
    );
    const listed = (await send("GET", "/v2/sandboxes")).body as Record<string, unknown>[];
    assert.deepEqual(sizes(listed.find((entry) => entry.sandboxID === large) ?? {}), LARGE);
    assert.deepEqual(sizes(listed.find((entry) => entry.sandboxID === base) ?? {}), DEFAULT_TEMPLATE_SIZE);
  });

  it("list: limit is an integer from 1 to 100", async () => {
    assertError(await send("GET", "/v2/sandboxes?limit=0"), 400, /^validation error: .*"limit".*at least 1/);
    assertError(await send("GET", "/v2/sandboxes?limit=101"), 400, /^validation error: .*"limit".*at most 100/);
    assertError(await send("GET", "/v2/sandboxes?limit=ten"), 400, /^validation error: .*"limit".*integer/);
    assert.equal((await send("GET", "/v2/sandboxes?limit=100")).status, 200);
  });

  it("list: state and order are enums; a bad startedAfter or nextToken is 400", async () => {
    assertError(await send("GET", "/v2/sandboxes?state=stopped"), 400, /^validation error: .*"state"/);
    assertError(await send("GET", "/v2/sandboxes?order=up"), 400, /^validation error: .*"order"/);
    assertError(await send("GET", "/v2/sandboxes?startedAfter=yesterday"), 400, /^validation error: .*date-time/);
    assertError(await send("GET", "/v2/sandboxes?nextToken=%21%21"), 400, "Invalid next token");
  });

  it("list: pages follow X-Next-Token, newest first, with X-Total-Running of the matching sandboxes", async () => {
    const ids = [await create({ metadata: { k: "v" } }), await create({ metadata: { k: "v" } }), await create()];
    const first = await send("GET", "/v2/sandboxes?limit=1&metadata=k%3Dv");
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("x-total-running"), "2");
    const token = first.headers.get("x-next-token");
    assert.ok(token);
    const second = await send("GET", `/v2/sandboxes?limit=1&metadata=k%3Dv&nextToken=${encodeURIComponent(token)}`);
    assert.equal(second.headers.get("x-next-token"), null, "the last page has no token");
    const seen = [...(first.body as { sandboxID: string }[]), ...(second.body as { sandboxID: string }[])];
    assert.deepEqual(new Set(seen.map((entry) => entry.sandboxID)), new Set(ids.slice(0, 2)));
    const paused = await send("GET", "/v2/sandboxes?state=paused");
    assert.equal(paused.headers.get("x-total-running"), null, "only present when running ones were asked for");
  });

  it("a killed sandbox is 404 to get, kill, connect, pause and timeout, and gone from the list", async () => {
    const id = await create();
    assert.equal((await send("DELETE", `/sandboxes/${id}`)).status, 204);
    const message = `Sandbox "${id}" doesn't exist or you don't have access to it`;
    assertError(await send("GET", `/sandboxes/${id}`), 404, message);
    assertError(await send("DELETE", `/sandboxes/${id}`), 404, message);
    assertError(await send("POST", `/sandboxes/${id}/connect`, { timeout: 60 }), 404, message);
    assertError(await send("POST", `/sandboxes/${id}/pause`, {}), 404, message);
    assertError(await send("POST", `/sandboxes/${id}/timeout`, { timeout: 60 }), 404, message);
    const listed = (await send("GET", "/v2/sandboxes")).body as { sandboxID: string }[];
    assert.ok(!listed.some((entry) => entry.sandboxID === id));
  });

  it("pause of a paused sandbox and resume of a running one are 409", async () => {
    const id = await create();
    assertError(
      await send("POST", `/sandboxes/${id}/resume`, { timeout: 60 }),
      409,
      `Sandbox ${id} is already running`,
    );
    assert.equal((await send("POST", `/sandboxes/${id}/pause`)).status, 204);
    assertError(
      await send("POST", `/sandboxes/${id}/pause`),
      409,
      /^Sandbox '.+' cannot be paused while in 'paused' state$/,
    );
  });

  it("connect: v1 needs a body with timeout; more than 24 hours is 400; v2 defaults to 300 s", async () => {
    const id = await create({ timeout: 10 });
    assertError(await send("POST", `/sandboxes/${id}/connect`), 400, /^validation error: .*required/);
    assertError(await send("POST", `/sandboxes/${id}/connect`, {}), 400, /^validation error: .*timeout/);
    assertError(await send("POST", `/sandboxes/${id}/connect`, { timeout: 86_401 }), 400, /greater than 24 hours/);
    const running = await send("POST", `/v2/sandboxes/${id}/connect`, {});
    assert.equal(running.status, 200, "a running sandbox answers 200");
    const extended = await lifetimeSeconds(id);
    assert.ok(extended >= 300 && extended < 600, `extended from 10 s to 300 s from now, got ${extended}`);
    assert.equal((await send("POST", `/sandboxes/${id}/pause`)).status, 204);
    assert.equal((await send("POST", `/sandboxes/${id}/connect`, { timeout: 60 })).status, 201, "resumed: 201");
  });

  it("timeout: required, ≥ 0, and clamped to 24 hours from the start rather than refused", async () => {
    const id = await create();
    assertError(await send("POST", `/sandboxes/${id}/timeout`, {}), 400, /^validation error: .*timeout/);
    assertError(await send("POST", `/sandboxes/${id}/timeout`, { timeout: -5 }), 400, /at least 0/);
    assert.equal((await send("POST", `/sandboxes/${id}/timeout`, { timeout: 200_000 })).status, 204);
    assert.equal(await lifetimeSeconds(id), 86_400);
  });
});
