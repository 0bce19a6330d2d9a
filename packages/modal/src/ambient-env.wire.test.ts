// With a hostile ~/.modal.toml (HOME points at it) and canary values in every
// MODAL_* variable the SDK reads, planted before the SDK is first imported (this
// file runs in its own process), a full workload through ModalRuntime and the
// real modal SDK must reach only the configured emulator, with only the
// configured credentials. Two tripwires stand where the file's server_url and
// MODAL_SERVER_URL point; then the SDK left to itself is shown to go there.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type ModalEmulator, startModalEmulator } from "@sandport/testkit/emulators/modal";
import { emulatorOptions } from "../test/emulated.js";
import { createModalSdkLoader } from "./internal/sdk.js";
import { ModalRuntime } from "./modal-runtime.js";

const CANARY_ID = "ak-canary0123456789abcdef";
const CANARY_SECRET = "as-canary0123456789abcdef";

/** A TCP server that counts and drops every connection: nothing should ever reach it. */
async function tripwire(): Promise<{ server: Server; url: string; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}`, connections: () => count };
}

let home: string;
let emulator: ModalEmulator;
let fileTrap: Awaited<ReturnType<typeof tripwire>>;
let envTrap: Awaited<ReturnType<typeof tripwire>>;
const planted: Record<string, string> = {};
const saved: Record<string, string | undefined> = {};

before(async () => {
  [fileTrap, envTrap] = await Promise.all([tripwire(), tripwire()]);
  home = await mkdtemp(join(tmpdir(), "sandport-modal-home-"));
  await writeFile(
    join(home, ".modal.toml"),
    [
      "[hostile]",
      "active = true",
      `server_url = "${fileTrap.url}"`,
      `token_id = "${CANARY_ID}"`,
      `token_secret = "${CANARY_SECRET}"`,
      'environment = "nowhere"',
      "sandbox_v2 = false",
      'image_builder_version = "2023.12"',
      "",
    ].join("\n"),
  );
  Object.assign(planted, {
    HOME: home,
    MODAL_SERVER_URL: envTrap.url,
    MODAL_TOKEN_ID: CANARY_ID,
    MODAL_TOKEN_SECRET: CANARY_SECRET,
    MODAL_OAUTH_CLIENT_ID: "oc-canary",
    MODAL_OAUTH_CLIENT_SECRET: "ov-canary",
    MODAL_OAUTH_REFRESH_TOKEN: "rt-canary",
    MODAL_ENVIRONMENT: "nowhere",
    MODAL_PROFILE: "hostile",
    MODAL_SANDBOX_V2: "false",
    MODAL_IMAGE_BUILDER_VERSION: "2023.12",
    MODAL_MAX_THROTTLE_WAIT: "0",
    MODAL_SANDBOX_CHANNEL_IDLE_TIMEOUT: "0.001",
    MODAL_USE_CONTROL_PLANE_SIDECAR_CREATE: "0",
  });
  for (const name of Object.keys(planted)) saved[name] = process.env[name];
  Object.assign(process.env, planted);
  emulator = await startModalEmulator();
});

after(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await emulator.stop();
  await new Promise((resolve) => fileTrap.server.close(resolve));
  await new Promise((resolve) => envTrap.server.close(resolve));
  await rm(home, { recursive: true, force: true });
});

test("a planted ~/.modal.toml and MODAL_* variables receive nothing and change nothing", async () => {
  const options = { ...emulatorOptions(emulator), owner: "ambient-test" };
  const runtime = new ModalRuntime(options);
  const handle = await runtime.launch({ labels: { probe: "ambient" }, env: { FROM_LAUNCH: "1" }, ports: [18_990] });
  await runtime.writeFiles(handle, [{ path: "in/a.txt", content: "a" }]);
  assert.equal((await runtime.exec(handle, { argv: ["cat", "in/a.txt"] })).stdout, "a");
  for await (const _event of runtime.execStream(handle, { shell: "echo streamed" })) {
    // drain
  }
  const process_ = await runtime.spawn(handle, { argv: ["cat"] });
  await process_.write("spawned");
  await process_.closeStdin();
  assert.equal((await process_.result).stdout, "spawned");
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "in/a.txt")), "a");
  await runtime.mkdir(handle, "made");
  assert.ok((await runtime.listDir(handle, ".")).some((entry) => entry.name === "made"));
  await runtime.stat(handle, "in/a.txt");
  await runtime.remove(handle, "made");
  assert.equal((await runtime.findByLabels({ probe: "ambient" })).length, 1);
  assert.match((await runtime.portEndpoint(handle, 18_990)).url, /^http:\/\/127\.0\.0\.1:/);
  const reopened = new ModalRuntime(options);
  const found = await reopened.getById(handle.id);
  assert.ok(found);
  assert.equal((await reopened.exec(found, { argv: ["true"] })).exitCode, 0);
  await reopened.destroy(found);

  assert.equal(fileTrap.connections(), 0, "nothing went to the server_url of ~/.modal.toml");
  assert.equal(envTrap.connections(), 0, "nothing went to MODAL_SERVER_URL");
  assert.deepEqual(
    emulator.unknownRoutes,
    [],
    "no V1 call: MODAL_SANDBOX_V2=false and sandbox_v2 = false did not apply",
  );
  assert.ok(
    emulator.countRequests("rpc modal.client.ModalClient/EnvironmentGetOrCreate") >= 1,
    "the image builder version came from the server, not MODAL_IMAGE_BUILDER_VERSION",
  );
  assert.ok(emulator.requests.length > 30, `the workload made ${emulator.requests.length} requests`);
  for (const request of emulator.requests) {
    for (const [name, value] of Object.entries(request.headers)) {
      for (const canary of [CANARY_ID, CANARY_SECRET, "oc-canary", "ov-canary", "rt-canary", "nowhere"]) {
        assert.ok(!value.includes(canary), `${request.route} header ${name} carries a canary value`);
      }
    }
    if (request.headers["x-modal-token-id"] !== undefined) {
      assert.equal(request.headers["x-modal-token-id"], emulator.tokenId);
      assert.equal(request.headers["x-modal-token-secret"], emulator.tokenSecret);
    }
  }
  for (const [name, value] of Object.entries(planted)) assert.equal(process.env[name], value, `${name} is as planted`);
  assert.match(await readFile(join(home, ".modal.toml"), "utf8"), /server_url/, "the file is untouched");
});

test("the traps are armed: the SDK left to itself goes to MODAL_SERVER_URL, then to the file's server_url", async () => {
  const sdk = (await createModalSdkLoader()()) as unknown as {
    ModalClient: new (params?: object) => { apps: { fromName(name: string): Promise<unknown> } };
  };
  // Explicit tokens, as the SDK refuses the planted token and OAuth variables together; they do not move the server.
  const params = {
    tokenId: CANARY_ID,
    tokenSecret: CANARY_SECRET,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  };
  await new sdk.ModalClient(params).apps.fromName("trap").catch(() => undefined);
  assert.ok(envTrap.connections() > 0, "MODAL_SERVER_URL is where the bare SDK went");
  delete process.env.MODAL_SERVER_URL;
  try {
    await new sdk.ModalClient(params).apps.fromName("trap").catch(() => undefined);
  } finally {
    process.env.MODAL_SERVER_URL = planted.MODAL_SERVER_URL;
  }
  assert.ok(fileTrap.connections() > 0, "without it, the server_url of ~/.modal.toml is");
});
