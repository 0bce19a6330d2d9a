// With DAYTONA_API_KEY, DAYTONA_JWT_TOKEN, DAYTONA_ORGANIZATION_ID,
// DAYTONA_API_URL, DAYTONA_SERVER_URL and DAYTONA_TARGET set, and .env and
// .env.local files in the working directory, all pointing at a trap server, a
// full workload through DaytonaRuntime (API key, then JWT) and the real SDK
// (newest and oldest) sends everything to the configured emulator: the trap
// receives nothing, and no request carries a planted value.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { waitFor } from "@sandport/testkit/assertions";
import { type DaytonaEmulator, startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { emulatorOptions, OLDEST, SDKS, type SdkUnderTest } from "../test/emulated.js";
import { DaytonaRuntime } from "./daytona-runtime.js";

const CANARY_KEY = "dtn_canary_0123456789abcdef";
const CANARY_JWT = "canary.jwt.token";
const CANARY_ORG = "canary-organization";
const CANARY_TARGET = "canary-target";

/** A workload that reaches every part of the runtime. */
async function workload(runtime: DaytonaRuntime, reopen: () => DaytonaRuntime): Promise<void> {
  const handle = await runtime.launch({ labels: { probe: "ambient" }, env: { FROM_LAUNCH: "1" } });
  await runtime.writeFiles(handle, [{ path: "in/a.txt", content: "a" }]);
  assert.equal((await runtime.exec(handle, { argv: ["cat", "in/a.txt"] })).stdout, "a");
  for await (const _event of runtime.execStream(handle, { shell: "echo streamed" })) {
    // drain
  }
  const ref = await runtime.startCommand(handle, { sessionId: "ambient", shell: "echo async" });
  await waitFor(async () => (await runtime.commandStatus(handle, ref)).state === "exited");
  assert.equal((await runtime.commandLogs(handle, ref)).stdout, "async\n");
  const process = await runtime.spawn(handle, { argv: ["cat"] });
  await process.write("spawned\n");
  await process.closeStdin();
  assert.equal((await process.result).stdout, "spawned\n");
  assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "in/a.txt")), "a");
  await runtime.mkdir(handle, "made");
  assert.ok((await runtime.listDir(handle, ".")).some((entry) => entry.name === "made"));
  await runtime.stat(handle, "in/a.txt");
  await runtime.remove(handle, "made");
  await runtime.portEndpoint(handle, 8080);
  await runtime.sandboxDetails(handle);
  assert.equal((await runtime.findByLabels({ probe: "ambient" })).length, 1);
  await runtime.stop(handle);
  await runtime.start(handle);
  const reopened = reopen();
  const found = await reopened.getById(handle.id);
  assert.ok(found);
  assert.equal((await reopened.exec(found, { argv: ["true"] })).exitCode, 0);
  await reopened.destroy(found);
  const detached = await runtime.launchDetached();
  await runtime.ready(detached);
  await runtime.destroy(detached);
}

/** Every request the emulator received went there with its own credentials and nothing planted. */
function assertClean(emulator: DaytonaEmulator, trapUrl: string, bearer: string, organization?: string): void {
  assert.deepEqual(emulator.unknownRoutes, []);
  assert.ok(emulator.requests.length > 30, `the workload made ${emulator.requests.length} requests`);
  for (const request of emulator.requests) {
    assert.equal(request.headers.authorization, `Bearer ${bearer}`, request.route);
    assert.equal(request.headers["x-daytona-organization-id"], organization, request.route);
    for (const [name, value] of Object.entries(request.headers)) {
      for (const canary of [CANARY_KEY, CANARY_JWT, CANARY_ORG, CANARY_TARGET, trapUrl]) {
        assert.ok(!value.includes(canary), `${request.route} header ${name} carries a planted value`);
      }
    }
    assert.ok(!request.path.includes(CANARY_TARGET), `${request.route} carries the planted target`);
  }
}

test("DAYTONA_* variables and .env files are never used: the trap they point at receives nothing", async () => {
  const tripped: string[] = [];
  const trap = createServer((request: IncomingMessage, response) => {
    tripped.push(`${request.method} ${request.url} (${request.headers.authorization})`);
    response.writeHead(500).end();
  });
  trap.on("upgrade", (request: IncomingMessage, socket) => {
    tripped.push(`upgrade ${request.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
  const trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
  const planted: Record<string, string> = {
    DAYTONA_API_KEY: CANARY_KEY,
    DAYTONA_JWT_TOKEN: CANARY_JWT,
    DAYTONA_ORGANIZATION_ID: CANARY_ORG,
    DAYTONA_API_URL: `${trapUrl}/api`,
    DAYTONA_SERVER_URL: `${trapUrl}/api`,
    DAYTONA_TARGET: CANARY_TARGET,
  };
  const saved = Object.fromEntries(Object.keys(planted).map((name) => [name, process.env[name]]));
  const directory = await mkdtemp(join(tmpdir(), "sandport-daytona-ambient-"));
  const dotenv = Object.entries({ ...planted, DAYTONA_API_URL: `${trapUrl}/from-dotenv` })
    .map(([name, value]) => `${name}=${value}`)
    .join("\n");
  await writeFile(join(directory, ".env"), `${dotenv}\n`);
  await writeFile(join(directory, ".env.local"), `${dotenv}\n`);
  const workingDirectory = process.cwd();
  Object.assign(process.env, planted);
  process.chdir(directory);
  try {
    for (const sdk of SDKS) await withApiKey(sdk, trapUrl);
    await withJwt(OLDEST, trapUrl);
    assert.deepEqual(tripped, [], "requests reached the trap that DAYTONA_* and .env point at");

    // The trap is armed: the oldest SDK left to itself reads the planted values and calls the trap.
    const sdk = await OLDEST.load();
    const unconfigured = new (sdk.Daytona as unknown as new () => { get(id: string): Promise<unknown> })();
    await unconfigured.get("anything").catch(() => undefined);
    assert.equal(tripped.length, 1, "the unconfigured SDK went where DAYTONA_API_URL points");
    assert.match(tripped[0] ?? "", new RegExp(`^GET /api/sandbox/anything.*\\(Bearer ${CANARY_KEY}\\)$`));
  } finally {
    process.chdir(workingDirectory);
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await rm(directory, { recursive: true, force: true });
    await new Promise((resolve) => trap.close(resolve));
  }
});

async function withApiKey(sdk: SdkUnderTest, trapUrl: string): Promise<void> {
  const emulator = await startDaytonaEmulator();
  try {
    const options = { ...emulatorOptions(emulator, sdk), owner: "ambient-test" };
    await workload(new DaytonaRuntime(options), () => new DaytonaRuntime(options));
    assertClean(emulator, trapUrl, emulator.apiKey);
  } finally {
    await emulator.stop();
  }
}

async function withJwt(sdk: SdkUnderTest, trapUrl: string): Promise<void> {
  const emulator = await startDaytonaEmulator({ jwtToken: "emulator-jwt", organizationId: "emulator-org" });
  try {
    const options = {
      jwtToken: "emulator-jwt",
      organizationId: "emulator-org",
      apiUrl: emulator.apiUrl,
      target: emulator.target,
      sdk: sdk.load,
      owner: "ambient-jwt",
    };
    await workload(new DaytonaRuntime(options), () => new DaytonaRuntime(options));
    assertClean(emulator, trapUrl, "emulator-jwt", "emulator-org");
  } finally {
    await emulator.stop();
  }
}
