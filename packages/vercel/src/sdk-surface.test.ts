// Translation logic against a structural fake of the SDK's typed surface, for what the
// emulator cannot stage on demand: a list whose row reappears under the same name with
// another creation time, a list that never answers, and proof that getById and the
// ownership checks never call the get that resumes a stopped sandbox.
import assert from "node:assert/strict";
import { test } from "node:test";
import { OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import type {
  VercelListParams,
  VercelSandbox,
  VercelSandboxPage,
  VercelSandboxRow,
  VercelSdkModule,
} from "./internal/sdk-types.js";
import { VercelRuntime } from "./vercel-runtime.js";

const credentials = { token: "vcp_fake", teamId: "team_fake", projectId: "prj_fake", owner: "unit" };
const NAME = "sandport-unit-key-1";
const row = (name: string, createdAt: number, owner = "unit"): VercelSandboxRow => ({
  name,
  createdAt,
  status: "running",
  tags: { job: "7", [OWNER_LABEL]: owner },
});

/** A fake SDK: `list` answers from `pages` (one call each), `get` and `create` are recorded; every call's params kept. */
function fakeSdk(pages: (params: VercelListParams) => VercelSandboxPage | Promise<VercelSandboxPage>) {
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  let deleted = 0;
  const sandbox = {
    name: NAME,
    createdAt: new Date(1_000),
    delete: async () => {
      deleted++;
    },
  } as unknown as VercelSandbox;
  const sdk: VercelSdkModule = {
    Sandbox: {
      list: async (params) => {
        calls.push({ method: "list", params });
        return pages(params);
      },
      get: async (params) => {
        calls.push({ method: "get", params });
        return sandbox;
      },
      create: async (params) => {
        calls.push({ method: "create", params });
        return sandbox;
      },
    },
  };
  return { sdk, calls, deletes: () => deleted };
}

const page = (...sandboxes: VercelSandboxRow[]): VercelSandboxPage => ({ sandboxes, pagination: { next: null } });

test("getById reads the list, filtered by the exact name, and never calls get (which can resume)", async () => {
  const fake = fakeSdk(() => page(row(`${NAME}-longer`, 5), row(NAME, 1_000)));
  const runtime = new VercelRuntime({ ...credentials, sdk: fake.sdk });
  const found = await runtime.getById(NAME);
  assert.deepEqual(found, {
    id: NAME,
    provider: "vercel",
    labels: { job: "7" },
    createdAt: new Date(1_000).toISOString(),
  });
  assert.deepEqual(
    fake.calls.map((call) => call.method),
    ["list"],
  );
  assert.equal(fake.calls[0]?.params.namePrefix, NAME);
  for (const field of ["token", "teamId", "projectId", "fetch", "signal"]) {
    assert.ok(fake.calls[0]?.params[field] !== undefined, `the list carries ${field}`);
  }
});

test("ownership is refused: outside the prefix without a call; inside it, without our owner tag, after one list", async () => {
  const fake = fakeSdk(() => page(row(NAME, 1_000, "someone-else")));
  const runtime = new VercelRuntime({ ...credentials, sdk: fake.sdk });
  await expectCode(runtime.getById("sandport-other-key"), "FOREIGN_SANDBOX");
  await expectCode(runtime.destroy({ id: "sandport-other-key", provider: "vercel", labels: {} }), "FOREIGN_SANDBOX");
  assert.equal(fake.calls.length, 0, "a name outside the prefix costs nothing");
  await expectCode(runtime.getById(NAME), "FOREIGN_SANDBOX");
  await expectCode(runtime.stop({ id: NAME, provider: "vercel", labels: {} }), "FOREIGN_SANDBOX");
  await expectCode(runtime.destroy({ id: NAME, provider: "vercel", labels: {} }), "FOREIGN_SANDBOX");
  assert.deepEqual(
    fake.calls.map((call) => call.method),
    ["list", "list", "list"],
    "checked by the list only: never fetched, stopped or deleted",
  );
  assert.deepEqual(await runtime.findByLabels({ job: "7" }), [], "and never found by labels");
});

test("a deleted sandbox whose name reappears with another creation time is proven gone", async () => {
  let probes = 0;
  const fake = fakeSdk(() => {
    probes++;
    // The ownership check sees ours; the first check after the delete still sees it; then a new one has the name.
    return page(row(NAME, probes <= 2 ? 1_000 : 9_000));
  });
  const runtime = new VercelRuntime({ ...credentials, sdk: fake.sdk });
  await runtime.destroy({ id: NAME, provider: "vercel", labels: {} });
  assert.equal(fake.deletes(), 1);
  assert.equal(probes, 3, "the ownership check, then two checks: the second saw the newcomer");
});

test("a deleted sandbox that stays listed under its creation time is DESTROY_UNVERIFIED, and stays known", async () => {
  const fake = fakeSdk(() => page(row(NAME, 1_000)));
  const runtime = new VercelRuntime({ ...credentials, sdk: fake.sdk });
  const error = await expectCode(
    runtime.destroy({ id: NAME, provider: "vercel", labels: {} }, { timeoutMs: 1_200 }),
    "DESTROY_UNVERIFIED",
  );
  assert.match(error.message, /still listed/);
  const before = fake.calls.length;
  await expectCode(
    runtime.destroy({ id: NAME, provider: "vercel", labels: {} }, { timeoutMs: 700 }),
    "DESTROY_UNVERIFIED",
  );
  assert.equal(fake.deletes(), 2, "destroying again deletes again");
  assert.equal(
    fake.calls.slice(before)[0]?.method,
    "get",
    "without a new ownership check (the handle stayed registered): the deleted instance is fetched again by name",
  );
});

test("a call whose SDK call never answers ends at its deadline, and the SDK's signal fires", async () => {
  let seen: AbortSignal | undefined;
  const fake = fakeSdk((params) => {
    seen = params.signal;
    return new Promise(() => {});
  });
  const runtime = new VercelRuntime({ ...credentials, sdk: fake.sdk });
  const started = performance.now();
  await expectCode(runtime.findByLabels({}, { timeoutMs: 150 }), "DEADLINE_EXCEEDED");
  assert.ok(performance.now() - started < 500);
  assert.equal(seen?.aborted, true, "the SDK was told to stop, its own retries included");
  const controller = new AbortController();
  const lookup = runtime.getById(NAME, { signal: controller.signal });
  controller.abort(new Error("gave up"));
  await expectCode(lookup, "ABORTED");
  assert.equal(seen?.aborted, true);
});
