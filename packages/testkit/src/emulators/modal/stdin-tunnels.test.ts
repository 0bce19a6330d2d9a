// Wire tests of the emulator's interactive parts, through the real Modal SDK:
// stdin forwarded to a running command, exact output bytes, and tunnels to a
// server a command starts. A backend without `spawn` or `portEndpoint` gets
// both refused as not emulated, never faked.

import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { SandboxRuntime } from "@sandport/core";
import { LocalRuntime } from "@sandport/local";
import { unusedPort } from "../../assertions/index.js";
import { destroyEverySandbox } from "../harness/backend.js";
import { type ModalEmulator, startModalEmulator } from "./emulator.js";
import { clientFor, loadModal, type Modal, type ModalClient } from "./sdk.fixture.js";

type App = Awaited<ReturnType<ModalClient["apps"]["fromName"]>>;
type CreateParams = NonNullable<Parameters<ModalClient["sandboxes"]["create"]>[2]>;

const ROUTER = "rpc modal.task_command_router.TaskCommandRouter/";

/** The gRPC status code of a nice-grpc `ClientError`. */
function grpcCode(error: unknown): number | undefined {
  return (error as { code?: unknown }).code as number | undefined;
}

/** Reads a text stream until `wanted` has arrived (the reader stays usable). */
async function readUntil(reader: ReadableStreamDefaultReader<string>, wanted: string): Promise<string> {
  let text = "";
  while (!text.includes(wanted)) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += chunk.value;
  }
  return text;
}

describe("Modal emulator: stdin, exact output bytes and tunnels (real modal SDK)", () => {
  let modal: Modal;
  let emulator: ModalEmulator;
  let client: ModalClient;
  let app: App;

  before(async () => {
    modal = await loadModal();
    emulator = await startModalEmulator();
    client = clientFor(modal, emulator).client;
    app = await client.apps.fromName("interactive", { createIfMissing: true });
  });

  after(() => emulator.stop());

  const create = (params: CreateParams = {}) =>
    client.sandboxes.create(app, client.images.fromRegistry("alpine:3.21"), { timeoutMs: 60_000, ...params });

  it("stdin reaches a running command line by line, and end-of-file ends it", async () => {
    const sandbox = await create();
    const command = await sandbox.exec(["sh", "-c", 'while read -r line; do echo "got:$line"; done; echo bye'], {
      timeoutMs: 20_000,
    });
    const reader = command.stdout.getReader();
    const writer = command.stdin.getWriter();
    await writer.write("one\n");
    assert.match(await readUntil(reader, "got:one\n"), /got:one\n/, "answered before the next line was sent");
    await writer.write("two é\n");
    assert.match(await readUntil(reader, "got:two é\n"), /got:two é\n/);
    emulator.resetRequests();
    await writer.close();
    assert.equal(await readUntil(reader, "bye\n"), "bye\n");
    assert.equal(await command.wait(), 0);
    assert.equal(emulator.countRequests(`${ROUTER}TaskExecStdinWrite`), 1, "end-of-file is one write");
    await sandbox.terminate();
  });

  it("stdin written before the command reads it is kept; a write after it ended is refused", async () => {
    const sandbox = await create();
    const command = await sandbox.exec(["sh", "-c", "sleep 0.3; cat"]);
    await command.stdin.writeText("early\n");
    await command.closeStdin();
    assert.equal(await command.stdout.readText(), "early\n");
    assert.equal(await command.wait(), 0);
    const done = await sandbox.exec(["true"]);
    assert.equal(await done.wait(), 0);
    await assert.rejects(done.stdin.getWriter().write("late"), (error) => grpcCode(error) === 9);
    await sandbox.terminate();
  });

  it("binary mode carries every byte value through stdin and stdout exactly", async () => {
    const sandbox = await create();
    const bytes = Uint8Array.from({ length: 256 }, (_, index) => index);
    const command = await sandbox.exec(["cat"], { mode: "binary" });
    const writer = command.stdin.getWriter();
    await writer.write(bytes);
    await writer.close();
    const [out, code] = await Promise.all([command.stdout.readBytes(), command.wait()]);
    assert.equal(code, 0);
    assert.deepEqual(Buffer.from(out), Buffer.from(bytes));
    await sandbox.terminate();
  });

  it("tunnels reach a server a command started, plain TCP and 'encrypted' alike (no TLS here)", async () => {
    // The server listens on this host (the default backend shares its network): ports nothing else holds.
    const [plainPort, tlsPort] = [await unusedPort(), await unusedPort()];
    const sandbox = await create({ unencryptedPorts: [plainPort], encryptedPorts: [tlsPort] });
    await sandbox.filesystem.writeText("tunnelled\n", "/workspace/site/probe.txt");
    await sandbox.exec(["python3", "-m", "http.server", String(plainPort), "--bind", "127.0.0.1"], {
      workdir: "/workspace/site",
    });
    try {
      const tunnels = await sandbox.tunnels(5_000);
      const numeric = (a: number, b: number) => a - b;
      assert.deepEqual(Object.keys(tunnels).map(Number).sort(numeric), [plainPort, tlsPort].sort(numeric));
      const [host, port] = tunnels[plainPort]!.tcpSocket;
      assert.equal(host, "127.0.0.1");
      assert.match(tunnels[tlsPort]!.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      assert.throws(() => tunnels[tlsPort]!.tcpSocket, modal.InvalidError, "an encrypted tunnel has no TCP socket");
      let body: string | undefined;
      for (let attempt = 0; body === undefined && attempt < 100; attempt++) {
        body = await fetch(`http://${host}:${port}/probe.txt`)
          .then((response) => (response.ok ? response.text() : undefined))
          .catch(() => undefined);
        if (body === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(body, "tunnelled\n");
    } finally {
      await sandbox.terminate();
    }
    await assert.rejects(create({ unencryptedPorts: [0] }), (error) => grpcCode(error) === 3);
    assert.deepEqual(emulator.unknownRoutes, []);
  });
});

describe("Modal emulator on a backend without spawn or portEndpoint", () => {
  let emulator: ModalEmulator;
  let root: string;
  let local: LocalRuntime;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), "sandport-modal-plain-"));
    local = new LocalRuntime({ root, isolation: "none" });
    // LocalRuntime keeps private fields: a view must call its methods on the instance itself.
    const backend = new Proxy(local, {
      get(target, property) {
        if (property === "spawn" || property === "portEndpoint") return undefined;
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as SandboxRuntime;
    emulator = await startModalEmulator({ backend });
  });

  after(async () => {
    await emulator.stop();
    await destroyEverySandbox(local);
    await rm(root, { recursive: true, force: true });
  });

  it("refuses stdin bytes and tunnels as not emulated, and logs both", async () => {
    const modal = await loadModal();
    const { client } = clientFor(modal, emulator);
    const app = await client.apps.fromName("plain", { createIfMissing: true });
    const image = client.images.fromRegistry("alpine:3.21");
    await assert.rejects(client.sandboxes.create(app, image, { encryptedPorts: [8080] }), (e) => grpcCode(e) === 12);
    const sandbox = await client.sandboxes.create(app, image);
    const cat = await sandbox.exec(["cat"]);
    await cat.closeStdin();
    assert.equal(await cat.wait(), 0, "end-of-file alone is accepted: stdin was closed from the start");
    await assert.rejects((await sandbox.exec(["cat"])).stdin.getWriter().write("x"), (e) => grpcCode(e) === 12);
    assert.deepEqual(emulator.unknownRoutes, [
      "POST /modal.client.ModalClient/SandboxCreateV2 (openPorts (tunnels))",
      "POST /modal.task_command_router.TaskCommandRouter/TaskExecStdinWrite (stdin bytes to a running command)",
    ]);
    await sandbox.terminate();
  });
});
