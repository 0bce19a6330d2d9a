// exec through the real SDK against the Daytona emulator: the working
// directory, environment and timeout travel in executeCommand's own fields,
// never in the command string; output comes back merged and capped; refusals
// are retried, lost answers are typed and their command stopped.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as real from "@daytonaio/sdk";
import { delay, expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";
import type { DaytonaSdkModule } from "./internal/sdk-types.js";

const EXECUTE = "POST /toolbox/:id/process/execute";

/** The arguments of one `executeCommand` call: command, cwd, env, timeout in seconds. */
type ExecuteCall = [command: string, cwd?: string, env?: Record<string, string>, timeout?: number];

/**
 * A spy on the real SDK: each `executeCommand` call's arguments are recorded,
 * then the real call is made. The emulator's request log keeps headers, not
 * bodies, so this is how the test sees which API fields a command used.
 */
function spyingSdk(calls: ExecuteCall[]): DaytonaSdkModule {
  const spy = <T extends real.Sandbox>(sandbox: T): T => {
    const original = sandbox.process.executeCommand.bind(sandbox.process);
    sandbox.process.executeCommand = (...args: ExecuteCall) => {
      calls.push(args);
      return original(...args);
    };
    return sandbox;
  };
  class SpyingDaytona extends real.Daytona {
    override async create(...args: Parameters<real.Daytona["create"]>): Promise<real.Sandbox> {
      return spy(await super.create(...args));
    }
    override async get(id: string): Promise<real.Sandbox> {
      return spy(await super.get(id));
    }
  }
  return { ...real, Daytona: SpyingDaytona } as unknown as DaytonaSdkModule;
}

/** The script inside a command made by `daemonCommand`, decoded. */
function decodeCommand(command: string): string {
  const match = /^sh -c 'eval "\$\(echo ([A-Za-z0-9+/=]+) \| base64 -d\)"'$/.exec(command);
  assert.ok(match, `not an encoded command: ${command.slice(0, 80)}`);
  return Buffer.from(match[1] as string, "base64").toString("utf8");
}

const calls: ExecuteCall[] = [];
const { emulator, runtime } = await emulated({ owner: "exec-tests", sdk: spyingSdk(calls) });
const handle = await runtime.launch({ env: { FROM_LAUNCH: "launch" } });

test("cwd, env and the timeout go in executeCommand's fields; the command string carries none of them", async () => {
  const hostile = "spaces 'quotes' $(not run) `x` é 🚀";
  await runtime.mkdir(handle, "sub dir");
  calls.length = 0;
  const result = await runtime.exec(handle, {
    shell: 'printf "%s|%s|%s" "$FROM_LAUNCH" "$REQUEST_VAR" "$(basename "$PWD")"',
    cwd: "sub dir",
    env: { REQUEST_VAR: hostile },
    timeoutMs: 2_500,
  });
  assert.equal(result.stdout, `launch|${hostile}|sub dir`);
  const [command, cwd, env, timeout] = calls.at(-1) ?? [];
  assert.equal(cwd, `${runtime.workspaceRoot}/sub dir`);
  assert.equal(env?.REQUEST_VAR, hostile);
  assert.match(env?.SANDPORT_EXEC_ID ?? "", /^[0-9a-f-]{36}$/, "a marker to find the command's tree by");
  assert.equal(timeout, 3, "whole seconds, rounded up");
  const script = decodeCommand(command ?? "");
  assert.ok(!script.includes(hostile) && !script.includes("sub dir"), "neither env nor cwd is in the command");
  assert.match(script, /head -c 16777217/, "the output cap, plus one byte to see it passed");
});

test("output is merged in the order written; exit codes are results; argv reaches the program verbatim", async () => {
  const mixed = await runtime.exec(handle, { shell: "echo out; echo err >&2; echo out2; exit 7" });
  assert.deepEqual([mixed.exitCode, mixed.stdout, mixed.stderr], [7, "out\nerr\nout2\n", ""]);
  const argv = await runtime.exec(handle, { argv: ["printf", "%s|", "two words", "it's", "$HOME", "-n"] });
  assert.equal(argv.stdout, "two words|it's|$HOME|-n|");
});

test("stdin: embedded when small, uploaded first when large (one request), absent is end of file", async () => {
  emulator.resetRequests();
  assert.equal((await runtime.exec(handle, { argv: ["cat"], stdin: "small\n" })).stdout, "small\n");
  assert.equal(emulator.countRequests("POST /toolbox/:id/files/bulk-upload"), 0, "embedded");
  const large = new Uint8Array(200_000).fill(65);
  assert.equal((await runtime.exec(handle, { shell: "wc -c", stdin: large })).stdout.trim(), "200000");
  assert.equal(emulator.countRequests("POST /toolbox/:id/files/bulk-upload"), 1, "staged with one upload");
  assert.equal(
    (await runtime.exec(handle, { shell: "ls -A ../.sandport/stdin | wc -l" })).stdout.trim(),
    "0",
    "and removed",
  );
  assert.equal((await runtime.exec(handle, { argv: ["cat"], timeoutMs: 5_000 })).stdout, "");
});

test("the output cap truncates at exactly maxOutputBytes and stops an endless writer", async () => {
  const started = performance.now();
  const capped = await runtime.exec(handle, { argv: ["yes"], maxOutputBytes: 1_000, timeoutMs: 30_000 });
  assert.ok(performance.now() - started < 5_000);
  assert.deepEqual([capped.truncated, capped.exitCode, capped.stdout.length], [true, null, 1_000]);
  const exact = await runtime.exec(handle, { shell: "printf '%01000d' 0", maxOutputBytes: 1_000 });
  assert.deepEqual([exact.truncated, exact.exitCode], [false, 0]);
});

test("a timeout is a result; a missing cwd is NOT_FOUND; reserved env and bad requests send nothing", async () => {
  const timedOut = await runtime.exec(handle, { shell: "sleep 10", timeoutMs: 500 });
  assert.deepEqual([timedOut.timedOut, timedOut.exitCode], [true, null]);
  await expectCode(runtime.exec(handle, { argv: ["true"], cwd: "no/such/dir" }), "NOT_FOUND");
  emulator.resetRequests();
  await expectCode(runtime.exec(handle, { argv: ["true"], env: { SANDPORT_EXEC_ID: "forged" } }), "INVALID_REQUEST");
  await expectCode(runtime.exec(handle, { shell: "x".repeat(200_000) }), "INVALID_REQUEST");
  assert.equal(emulator.countRequests(), 0);
});

test("429 and 503 on a start are retried (nothing ran); a lost answer is typed and its command stopped", async () => {
  emulator.injectFault({ route: EXECUTE, fault: { kind: "status", status: 503 } });
  emulator.injectFault({ route: EXECUTE, fault: { kind: "status", status: 429, retryAfterSeconds: 0 } });
  assert.equal((await runtime.exec(handle, { shell: "echo ran >> runs.txt" })).exitCode, 0);
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "runs.txt")), "ran\n", "ran exactly once");

  emulator.injectFault({ route: EXECUTE, fault: { kind: "status", status: 500 } });
  const failed = await expectCode(runtime.exec(handle, { argv: ["true"] }), "PROVIDER_UNAVAILABLE");
  assert.equal(failed.details.outcomeUnknown, true, "a 500 may come after the command ran");
  assert.equal(failed.retryable, false);

  emulator.injectFault({ route: EXECUTE, fault: { kind: "drop" } });
  const dropped = await expectCode(runtime.exec(handle, { argv: ["true"] }), "PROVIDER_UNAVAILABLE");
  assert.deepEqual([dropped.details.outcomeUnknown, dropped.retryable], [true, false], "it may have been sent");

  // The answer breaks off while a child the command left behind still runs: the child is stopped by its marker.
  emulator.injectFault({ route: EXECUTE, fault: { kind: "drop-mid-stream" } });
  const cut = await expectCode(
    runtime.exec(handle, { shell: "(sleep 0.5; echo late > cut.txt) >/dev/null 2>&1 &" }),
    "PROVIDER_UNAVAILABLE",
  );
  assert.equal(cut.details.outcomeUnknown, true);
  await delay(800);
  await expectCode(runtime.readFile(handle, "cut.txt"), "NOT_FOUND");
});
