// The SDK's ambient configuration against the emulator: `~/.modal.toml` (here
// MODAL_CONFIG_PATH) is parsed once, when `modal` is first imported, and its
// active profile feeds every client unless the environment overrides it while
// the client is constructed. This file plants a hostile config before the
// import (each test file runs in its own process) to show what
// `emulator.construct` pins and what leaks without it.

import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ModalEmulator, startModalEmulator } from "./emulator.js";
import { clientFor, loadModal, type Modal, quietLogger } from "./sdk.fixture.js";

describe("Modal emulator and the SDK's ambient configuration", () => {
  let directory: string;
  let modal: Modal;
  let emulator: ModalEmulator;
  /** The server the config names: a second emulator, started before the SDK is imported. */
  let configured: ModalEmulator;

  before(async () => {
    configured = await startModalEmulator();
    directory = await mkdtemp(join(tmpdir(), "sandport-modal-config-"));
    const config = join(directory, "modal.toml");
    await writeFile(
      config,
      [
        "[hostile]",
        "active = true",
        `server_url = "${configured.url}"`,
        'token_id = "ak-from-toml"',
        'token_secret = "as-from-toml"',
        'environment = "nowhere"',
        "sandbox_v2 = false",
        "",
      ].join("\n"),
    );
    modal = await loadModal(config);
    emulator = await startModalEmulator();
  });

  after(async () => {
    await emulator.stop();
    await configured.stop();
    await rm(directory, { recursive: true, force: true });
  });

  it("construct() overrides the config's server, sandbox API version, environment and tokens", async () => {
    const { client } = clientFor(modal, emulator);
    const app = await client.apps.fromName("ambient", { createIfMissing: true });
    const sandbox = await client.sandboxes.create(app, client.images.fromRegistry("alpine:3.21"));
    const command = await sandbox.exec(["echo", "pinned"]);
    assert.equal(await command.stdout.readText(), "pinned\n");
    await sandbox.terminate();
    assert.equal(emulator.countRequests("rpc modal.client.ModalClient/SandboxCreateV2"), 1);
    assert.deepEqual(emulator.unknownRoutes, []);
  });

  it("without the environment, a client goes to the config's server_url (explicit tokens do not change that)", async () => {
    emulator.resetRequests();
    const client = new modal.ModalClient({ ...emulator.sdkOptions, logger: quietLogger().logger });
    await assert.rejects(client.apps.fromName("ambient"), (error) => (error as { code?: number }).code === 16);
    assert.equal(emulator.countRequests(), 0);
    assert.deepEqual(
      configured.requests.map((request) => [request.route, request.headers["x-modal-token-id"]]),
      [["rpc modal.client.ModalClient/AuthTokenGet", emulator.tokenId]],
      "the explicit tokens went to the config's server, which refused them",
    );
  });

  it("with only MODAL_SERVER_URL, the config's sandbox_v2 = false sends the V1 create, which is not emulated", async () => {
    emulator.resetRequests();
    process.env.MODAL_SERVER_URL = emulator.url;
    let client: InstanceType<Modal["ModalClient"]>;
    try {
      client = new modal.ModalClient({ ...emulator.sdkOptions, logger: quietLogger().logger });
    } finally {
      delete process.env.MODAL_SERVER_URL;
    }
    const app = await client.apps.fromName("ambient");
    await assert.rejects(
      client.sandboxes.create(app, client.images.fromRegistry("alpine:3.21")),
      (error) => (error as { code?: number }).code === 12,
    );
    assert.deepEqual(emulator.unknownRoutes, ["POST /modal.client.ModalClient/SandboxCreate"]);
  });
});
