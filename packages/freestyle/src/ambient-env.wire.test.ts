// With a canary in FREESTYLE_API_KEY (the one variable the freestyle library
// reads), the CLI's variables and files (FREESTYLE_PROXY, FREESTYLE_TEAM,
// FREESTYLE_API_URL of the older SDKs, ~/.freestyle/config.json, a .env in
// the working directory) all pointing at a tripwire server, a full workload
// through FreestyleRuntime and the real SDK must send every request to the
// configured emulator, and no request may carry a canary value.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startFreestyleEmulator } from "@sandport/testkit/emulators/freestyle";
import { emulatorOptions, HOME } from "../test/emulated.js";
import { FreestyleRuntime } from "./freestyle-runtime.js";
import { createFreestyleSdkLoader } from "./internal/sdk.js";

const CANARY_KEY = "fs_canary_0123456789abcdef0123456789abcdef";
const CANARY_TEAM = "team_canary_0123456789";

test("FREESTYLE_* variables and CLI files are never used: no request carries them or goes elsewhere", async () => {
  const tripped: string[] = [];
  const tripwire = createServer((request: IncomingMessage, response) => {
    tripped.push(`${request.method} ${request.url} (authorization ${request.headers.authorization})`);
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => tripwire.listen(0, "127.0.0.1", resolve));
  const tripwireUrl = `http://127.0.0.1:${(tripwire.address() as AddressInfo).port}`;
  const scratch = await mkdtemp(join(tmpdir(), "sandport-freestyle-ambient-"));
  await mkdir(join(scratch, ".freestyle"));
  await writeFile(
    join(scratch, ".freestyle", "config.json"),
    JSON.stringify({ apiKey: CANARY_KEY, teamId: CANARY_TEAM, baseUrl: tripwireUrl }),
  );
  await writeFile(join(scratch, ".env"), `FREESTYLE_API_KEY=${CANARY_KEY}\nFREESTYLE_PROXY=${tripwireUrl}\n`);
  const canaries: Record<string, string> = {
    FREESTYLE_API_KEY: CANARY_KEY,
    FREESTYLE_API_URL: tripwireUrl,
    FREESTYLE_PROXY: tripwireUrl,
    FREESTYLE_TEAM: CANARY_TEAM,
    HOME: scratch,
  };
  const saved = Object.fromEntries(Object.keys(canaries).map((name) => [name, process.env[name]]));
  const savedDirectory = process.cwd();
  Object.assign(process.env, canaries);
  process.chdir(scratch);
  const emulator = await startFreestyleEmulator({ workspaceDirectory: HOME });
  try {
    const options = { ...emulatorOptions(emulator), owner: "ambient-test" };
    const runtime = new FreestyleRuntime(options);
    const handle = await runtime.launch({ labels: { probe: "ambient" }, env: { FROM_LAUNCH: "1" } });
    await runtime.writeFiles(handle, [{ path: "in/a.txt", content: "a" }]);
    assert.equal((await runtime.exec(handle, { argv: ["cat", "in/a.txt"] })).stdout, "a");
    assert.equal((await runtime.exec(handle, { shell: 'echo "$FROM_LAUNCH"' })).stdout, "1\n");
    assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "in/a.txt")), "a");
    await runtime.mkdir(handle, "made");
    assert.ok((await runtime.listDir(handle, ".")).some((entry) => entry.name === "made"));
    await runtime.stat(handle, "in/a.txt");
    await runtime.remove(handle, "made");
    assert.equal((await runtime.findByLabels({ probe: "ambient" })).length, 1);
    await runtime.stop(handle);
    await runtime.start(handle);
    // A second instance reattaches (getById, then a command).
    const reopened = new FreestyleRuntime(options);
    const found = await reopened.getById(handle.id);
    assert.ok(found);
    assert.equal((await reopened.exec(found, { argv: ["true"] })).exitCode, 0);
    await reopened.destroy(found);

    assert.deepEqual(tripped, [], "requests reached the tripwire the canaries point at");
    assert.deepEqual(emulator.unknownRoutes, []);
    assert.ok(emulator.requests.length > 15, `the workload made ${emulator.requests.length} requests`);
    for (const request of emulator.requests) {
      for (const [name, value] of Object.entries(request.headers)) {
        for (const canary of [CANARY_KEY, CANARY_TEAM, tripwireUrl]) {
          assert.ok(!value.includes(canary), `${request.route} header ${name} carries a canary value`);
        }
      }
      assert.equal(request.headers.authorization, `Bearer ${emulator.apiKey}`, `${request.route} authorization`);
    }

    // The trap is armed: the SDK left to itself does read FREESTYLE_API_KEY.
    const sdk = await createFreestyleSdkLoader()();
    const bare = new sdk.Freestyle({ baseUrl: tripwireUrl, fetch: globalThis.fetch } as never);
    await bare.vms.list({ limit: 1, offset: 0 }).catch(() => undefined);
    assert.equal(tripped.length, 1, "the unconfigured SDK went where it was pointed");
    assert.match(tripped[0] ?? "", new RegExp(`^GET /v5/vms.*\\(authorization Bearer ${CANARY_KEY}\\)$`));
  } finally {
    process.chdir(savedDirectory);
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await emulator.stop();
    await new Promise((resolve) => tripwire.close(resolve));
    await rm(scratch, { recursive: true, force: true });
  }
});
