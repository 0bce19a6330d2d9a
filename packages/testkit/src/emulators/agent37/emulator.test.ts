// The Agent37 emulator's wire contract, spoken with plain fetch (README.md's table):
// both planes' credentials and error envelopes, exec's one-field body and its cap,
// the list's shape, the instance edge's answers for stopped and unknown instances,
// and fault injection in Agent37's envelope.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Agent37Emulator, startAgent37Emulator } from "./emulator.js";

describe("Agent37 emulator", () => {
  let emulator: Agent37Emulator;
  const call = (path: string, init: RequestInit = {}, key = emulator.apiKey) =>
    fetch(`${emulator.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
    });
  before(async () => {
    emulator = await startAgent37Emulator({ execCapMs: 1_000, instanceAuth: "x-agent37-key" });
  });
  after(() => emulator.stop());

  test("the hosting plane: Bearer auth, the instance object, a list without paging, exec's contract", async () => {
    const refused = await call("/v1/instances", {}, "sk_live_wrong");
    assert.equal(refused.status, 401);
    assert.deepEqual(await refused.json(), {
      error: { code: "invalid_api_key", message: "missing or invalid API key" },
    });
    const created = await call("/v1/instances", { method: "POST", body: JSON.stringify({ metadata: { a: "1" } }) });
    assert.equal(created.status, 201);
    const instance = (await created.json()) as { id: string; status: string; url: string; metadata: unknown };
    assert.match(instance.id, /^[a-z0-9]{10}$/);
    assert.equal(instance.status, "running");
    assert.deepEqual(instance.metadata, { a: "1" });
    const list = (await (await call("/v1/instances")).json()) as { data: { id: string }[] };
    assert.deepEqual(
      list.data.map((entry) => entry.id),
      [instance.id],
    );
    const exec = (body: unknown) =>
      call(`/v1/instances/${instance.id}/exec`, { method: "POST", body: JSON.stringify(body) });
    assert.equal((await exec({ command: "true", timeout: 5 })).status, 400, "exactly one field");
    assert.deepEqual(await (await exec({ command: "echo out; echo err >&2; exit 3" })).json(), {
      exit_code: 3,
      stdout: "out\n",
      stderr: "err\n",
      truncated: false,
    });
    const capped = await exec({ command: "sleep 3" });
    assert.equal(capped.status, 502);
    assert.equal(((await capped.json()) as { error: { code: string } }).error.code, "provisioning_failed");

    // The instance edge takes the key in X-Agent37-Key only (as configured), flat errors.
    const edge = (path: string, headers: Record<string, string>) => fetch(`${instance.url}${path}`, { headers });
    assert.equal((await edge("/v1/health", { authorization: `Bearer ${emulator.apiKey}` })).status, 401);
    assert.deepEqual(await (await edge("/v1/health", { "x-agent37-key": emulator.apiKey })).json(), { ok: true });
    await call(`/v1/instances/${instance.id}/stop`, { method: "POST" });
    const stopped = await edge("/v1/health", { "x-agent37-key": emulator.apiKey });
    assert.equal(stopped.status, 502);
    assert.deepEqual(await stopped.json(), { error: "container_unavailable" });
    assert.equal((await exec({ command: "true" })).status, 400, "no exec on a stopped instance");
    assert.equal((await call(`/v1/instances/${instance.id}`, { method: "DELETE" })).status, 200);
    assert.equal((await call(`/v1/instances/${instance.id}`, { method: "DELETE" })).status, 404, "a repeat is 404");
  });

  test("an injected 429 answers in Agent37's envelope with Retry-After, and does no work", async () => {
    emulator.injectFault({ route: "POST /v1/instances", fault: { kind: "status", status: 429, retryAfterSeconds: 3 } });
    const answer = await call("/v1/instances", { method: "POST", body: "{}" });
    assert.equal(answer.status, 429);
    assert.equal(answer.headers.get("retry-after"), "3");
    assert.equal(((await answer.json()) as { error: { code: string } }).error.code, "rate_limited");
    assert.equal(emulator.liveSandboxes().length, 0);
  });
});
