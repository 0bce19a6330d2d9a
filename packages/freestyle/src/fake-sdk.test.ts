// FreestyleRuntime over a tiny structural fake of the SDK (the emulator tests
// use the real one): what the runtime hands the SDK when it builds a client,
// hostile strings through the command it sends (run here by a real sh in a
// temporary home directory), ownership decided on VM records the emulator does
// not produce, a late answer followed within the deadline, and deadlines on
// calls that never answer.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { OWNER_LABEL } from "@sandport/core";
import { delay, expectCode } from "@sandport/testkit/assertions";
import { FreestyleRuntime } from "./freestyle-runtime.js";
import type {
  FreestyleClientOptions,
  FreestyleExecOptions,
  FreestyleExecResult,
  FreestyleSdkModule,
  FreestyleVmData,
} from "./internal/sdk-types.js";

const home = mkdtempSync(join(tmpdir(), "sandport-freestyle-fake-"));
mkdirSync(join(home, "workspace"));
after(() => rmSync(home, { recursive: true, force: true }));

/** What the fake was asked to do, and how it answers. */
const fake = {
  clients: [] as FreestyleClientOptions[],
  records: new Map<string, FreestyleVmData>(),
  execs: [] as FreestyleExecOptions[],
};

/** Runs an exec body with a real sh in the temporary home directory, as the API runs it in a VM. */
function runLocally(body: FreestyleExecOptions): FreestyleExecResult {
  const result = spawnSync("sh", ["-c", body.command], {
    cwd: home,
    env: { PATH: process.env.PATH, ...body.env },
    input: body.stdin === undefined ? "" : Buffer.from(body.stdin, "base64"),
    timeout: body.timeoutMs,
    encoding: "utf8",
  });
  return { stdout: result.stdout, stderr: result.stderr, statusCode: result.signal ? null : result.status };
}

const never = () => new Promise<never>(() => {});

class FakeFreestyle {
  readonly vms;
  constructor(options: FreestyleClientOptions) {
    fake.clients.push(options);
    this.vms = {
      create: async () => {
        const data: FreestyleVmData = { id: "vm1", state: "running", slug: "x", metadata: {}, createdAt: "" };
        return { vmId: data.id, data };
      },
      get: async (id: string) => {
        const record = fake.records.get(id);
        if (record === undefined) return never();
        return record;
      },
      list: never,
      delete: never,
      ref: (id: string) => ({
        id,
        fs: {} as never,
        start: never,
        pause: never,
        exec: async (body: FreestyleExecOptions) => {
          fake.execs.push(body);
          // A command naming NEVER is never answered; one naming LATE is answered after 700 ms.
          if (body.command.includes("NEVER")) return never();
          if (body.command.includes("LATE")) await delay(700);
          // One naming NOSTATUS ends without a status code, as Freestyle answers for its timeout.
          if (body.command.includes("NOSTATUS")) return { stdout: "", stderr: "", statusCode: null };
          return runLocally(body);
        },
      }),
    };
  }
}

const sdk = { Freestyle: FakeFreestyle, FreestyleApiError: class {} } as unknown as FreestyleSdkModule;
const ours: FreestyleVmData = {
  id: "vmours",
  state: "running",
  slug: "sandport-0123",
  metadata: { [OWNER_LABEL]: "fake-tests", job: "1" },
  createdAt: "2026-11-30T12:00:00Z",
};
fake.records.set(ours.id, ours);
const transported: { url: string; signal: unknown }[] = [];
const runtime = new FreestyleRuntime({
  apiKey: "fs_key",
  baseUrl: "https://freestyle.example",
  owner: "fake-tests",
  homeDirectory: home,
  sdk,
  fetch: async (input, init) => {
    transported.push({ url: String(input), signal: init?.signal });
    return new Response("{}");
  },
  timeouts: { execGraceMs: 300 },
});
const handle = { id: ours.id, provider: "freestyle" as const, labels: {} };

test("every client gets the API key, the base URL and a fetch that carries its call's signal", async () => {
  fake.clients.length = 0;
  await runtime.getById(ours.id);
  assert.equal(fake.clients.length, 1);
  const [client] = fake.clients;
  assert.deepEqual(
    [client?.apiKey, client?.baseUrl, typeof client?.fetch],
    ["fs_key", "https://freestyle.example", "function"],
  );
  await client!.fetch("https://freestyle.example/v5/vms");
  assert.equal(transported.length, 1, "it sends through the configured transport");
  assert.ok(transported[0]?.signal instanceof AbortSignal, "with a signal that ends at the call's deadline");
});

test("hostile argv, env, cwd and shell text reach the command exactly; nothing in them runs", async () => {
  const hostile = [
    "it's",
    '"q"',
    "$(touch pwned)",
    "`touch pwned`",
    "a;touch pwned",
    "\n",
    "",
    "-n",
    "ünï ✓",
    ")",
    "#",
  ];
  const argv = await runtime.exec(handle, { argv: ["printf", "[%s]", ...hostile] });
  assert.equal(argv.stdout, hostile.map((value) => `[${value}]`).join(""));
  const env = await runtime.exec(handle, { shell: 'printf "%s" "$X"', env: { X: hostile.join(" ") } });
  assert.equal(env.stdout, hostile.join(" "));
  const directory = "dir with 'quote' $(touch pwned)";
  await runtime.exec(handle, { argv: ["mkdir", "-p", directory] });
  const cwd = await runtime.exec(handle, { shell: 'basename "$PWD"', cwd: directory });
  assert.equal(cwd.stdout, `${directory}\n`);
  const shell = await runtime.exec(handle, { shell: 'echo "$((6 * 7))" | tr 4 X; exit 3' });
  assert.deepEqual([shell.stdout, shell.exitCode], ["X2\n", 3]);
  assert.equal(existsSync(join(home, "workspace", "pwned")) || existsSync(join(home, "pwned")), false);
});

test("ownership needs both marks; a record the API found by slug is not the id asked for", async () => {
  const records: [string, Partial<FreestyleVmData>, "FOREIGN_SANDBOX" | undefined][] = [
    ["noslug", { slug: null }, "FOREIGN_SANDBOX"],
    ["otherprefix", { slug: "elsewhere-0123" }, "FOREIGN_SANDBOX"],
    ["bareprefix", { slug: "sandport" }, "FOREIGN_SANDBOX"],
    ["otherowner", { metadata: { [OWNER_LABEL]: "someone-else" } }, "FOREIGN_SANDBOX"],
    ["noowner", { metadata: {} }, "FOREIGN_SANDBOX"],
    ["byslug", { id: "another-id" }, undefined],
  ];
  for (const [id, change] of records) fake.records.set(id, { ...ours, id, ...change });
  for (const [id, , code] of records) {
    if (code) await expectCode(runtime.getById(id), code, id);
    else assert.equal(await runtime.getById(id), undefined, id);
  }
  const found = await runtime.getById(ours.id);
  assert.deepEqual(found, {
    id: ours.id,
    provider: "freestyle",
    labels: { job: "1" },
    createdAt: "2026-11-30T12:00:00.000Z",
  });
});

test("an answer that comes after a while is waited for, within the command's timeout plus the grace", async () => {
  const late = await runtime.exec(handle, { argv: ["echo", "LATE"], timeoutMs: 600 });
  assert.equal(late.stdout, "LATE\n", "600 ms + 300 ms of grace covers a 700 ms answer");
  const started = performance.now();
  await expectCode(runtime.exec(handle, { argv: ["echo", "NEVER"], timeoutMs: 200 }), "DEADLINE_EXCEEDED");
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 480 && elapsed < 1_000, `the deadline is the timeout plus the grace: ${elapsed} ms`);
  assert.deepEqual(await runtime.settle(), [], "the kill that followed ran");
  assert.match(fake.execs.at(-1)?.command ?? "", /grep -lzx -- SANDPORT_EXEC_ID=[0-9a-f-]{36} /);
});

test("an answer without a status code is Freestyle's timeout only once the command ran that long; before, a kill", async () => {
  const early = await runtime.exec(handle, { argv: ["echo", "NOSTATUS"], timeoutMs: 5_000 });
  assert.deepEqual([early.exitCode, early.timedOut], [null, false], "no code and no timeout: not timedOut");
  const late = await runtime.exec(handle, { argv: ["echo", "LATE", "NOSTATUS"], timeoutMs: 600 });
  assert.deepEqual([late.exitCode, late.timedOut], [null, true]);
});

test("a lookup that never answers ends at its deadline", async () => {
  const started = performance.now();
  await expectCode(runtime.getById("nobody", { timeoutMs: 150 }), "DEADLINE_EXCEEDED");
  assert.ok(performance.now() - started < 600);
  assert.deepEqual(await runtime.settle(), []);
});
