// A process's stdin and output bytes: SendInput and CloseStdin through the
// real e2b SDK, StreamInput (which the SDK never calls) as a hand-made Connect
// client stream, and the named-pipe fallback for backends without spawn.

import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { SandboxRuntime } from "@sandport/core";
import { LocalRuntime } from "@sandport/local";
import * as e2b from "e2b";
import { destroyEverySandbox } from "../harness/backend.js";
import { decodeEnvelopes, encodeEnvelope } from "../harness/connect-rpc.js";
import { startE2BEmulator } from "./emulator.js";
import { useEmulator } from "./sdk-tests.fixture.js";

const { Sandbox } = e2b;
const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, index) => index);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** One Connect JSON envelope per message, as a client stream's request body. */
function clientStream(messages: readonly unknown[]): Buffer {
  return Buffer.concat(messages.map((message) => encodeEnvelope(0, Buffer.from(JSON.stringify(message)))));
}

/** The headers envd wants from a client of this sandbox (the SDK keeps its access token protected). */
function envdHeaders(sandbox: e2b.Sandbox, contentType: string): Record<string, string> {
  return {
    "content-type": contentType,
    "e2b-sandbox-id": sandbox.sandboxId,
    "x-access-token": String(Reflect.get(sandbox, "envdAccessToken")),
  };
}

describe("E2B emulator: process input and output bytes", () => {
  const fixture = useEmulator();
  const { create } = fixture;
  const hexdump = { background: true, stdin: true, timeoutMs: 20_000 } as const;

  it("SendInput feeds the real process's stdin byte for byte; CloseStdin ends it; no pipe is made", async () => {
    const sandbox = await create();
    const dump = await sandbox.commands.run("od -An -v -tx1 | tr -d ' \\n'", hexdump);
    await sandbox.commands.sendStdin(dump.pid, ALL_BYTES.subarray(0, 128));
    await dump.sendStdin(ALL_BYTES.subarray(128));
    const home = await sandbox.files.list("/home/user");
    assert.deepEqual(
      home.map((entry) => entry.name).filter((name) => name.startsWith(".e2b-emulator")),
      [],
    );
    await dump.closeStdin();
    assert.equal((await dump.wait()).stdout, hex(ALL_BYTES));
    await assert.rejects(sandbox.commands.closeStdin(dump.pid), e2b.NotFoundError, "its stdin is gone with it");
  });

  it("Start streams the bytes a command wrote, not a re-encoding of its text", async () => {
    const sandbox = await create();
    const response = await fetch(`${fixture.emulator.sandboxUrl}/process.Process/Start`, {
      method: "POST",
      headers: envdHeaders(sandbox, "application/connect+json"),
      body: clientStream([{ process: { cmd: "/bin/sh", args: ["-c", "printf '\\377\\000\\303'"] } }]),
    });
    const frames = decodeEnvelopes(new Uint8Array(await response.arrayBuffer()));
    type Message = { event?: { data?: { stdout?: unknown } } };
    const events = frames.map((frame) => JSON.parse(frame.payload.toString("utf8")) as Message);
    const stdout = events.flatMap((message) => {
      const chunk = message.event?.data?.stdout;
      return typeof chunk === "string" ? [...Buffer.from(chunk, "base64")] : [];
    });
    assert.deepEqual(stdout, [0xff, 0x00, 0xc3], "invalid UTF-8 arrives as it was written");
  });

  it("StreamInput: a start, data and keepalives feed stdin in order; a stream without start is refused", async () => {
    const sandbox = await create();
    const cat = await sandbox.commands.run("cat", hexdump);
    const send = (messages: readonly unknown[]) =>
      fetch(`${fixture.emulator.sandboxUrl}/process.Process/StreamInput`, {
        method: "POST",
        headers: envdHeaders(sandbox, "application/connect+json"),
        body: clientStream(messages),
      });
    const chunk = (text: string) => ({ data: { input: { stdin: Buffer.from(text).toString("base64") } } });
    const answer = await send([
      { start: { process: { pid: cat.pid } } },
      chunk("one "),
      { keepalive: {} },
      chunk("two"),
    ]);
    assert.equal(answer.status, 200);
    const frames = decodeEnvelopes(new Uint8Array(await answer.arrayBuffer()));
    assert.deepEqual(
      frames.map((frame) => [frame.flags, frame.payload.toString("utf8")]),
      [
        [0, "{}"],
        [2, "{}"],
      ],
      "one empty response message, then the end of the stream",
    );
    await cat.closeStdin();
    assert.equal((await cat.wait()).stdout, "one two");

    const refused = await send([chunk("orphan")]);
    const [ending] = decodeEnvelopes(new Uint8Array(await refused.arrayBuffer()));
    assert.equal(ending?.flags, 2);
    assert.equal(JSON.parse(ending?.payload.toString("utf8") ?? "{}").error?.code, "invalid_argument");
    assert.deepEqual(fixture.emulator.unknownRoutes, []);
  });

  it("a backend without spawn gets its stdin through a named pipe, with the same wire behaviour", async () => {
    const root = await mkdtemp(join(tmpdir(), "sandport-emulator-pipe-"));
    const local = new LocalRuntime({ root, isolation: "none" });
    // Every method but spawn, bound: LocalRuntime keeps its state in private fields.
    const backend = Object.create(null) as Record<string, unknown>;
    for (const key of ["specificationVersion", "provider", "workspaceRoot", "capabilities"] as const) {
      backend[key] = local[key];
    }
    for (const method of ["launch", "exec", "execStream", "writeFiles", "readFile", "destroy", "stat", "listDir"]) {
      backend[method] = (local[method as keyof LocalRuntime] as (...args: unknown[]) => unknown).bind(local);
    }
    const own = await startE2BEmulator({ backend: backend as unknown as SandboxRuntime });
    try {
      const sandbox = await Sandbox.create({ ...own.sdkOptions, timeoutMs: 60_000 });
      const cat = await sandbox.commands.run("cat", hexdump);
      await cat.sendStdin("through the pipe\n");
      await cat.closeStdin();
      assert.equal((await cat.wait()).stdout, "through the pipe\n");
    } finally {
      await own.stop();
      await destroyEverySandbox(local);
      await rm(root, { recursive: true, force: true });
    }
  });
});
