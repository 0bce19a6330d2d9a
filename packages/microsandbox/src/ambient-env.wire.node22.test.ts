// With MSB_BACKEND, MSB_API_URL, MSB_API_KEY and MSB_PROFILE set, and a config
// file under a temporary MSB_HOME whose active profile is a cloud backend, all
// pointing at a trap server, a full workload through MicrosandboxRuntime and
// the real SDK reaches only the emulator it was configured with, and the trap
// hears nothing. The trap is then shown to be armed: the SDK left to its
// defaults goes there.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startMicrosandboxEmulator } from "@sandport/testkit/emulators/microsandbox";
import { cloudOf } from "../test/emulated.js";
import { createMicrosandboxSdkLoader } from "./internal/sdk.js";
import { MicrosandboxRuntime } from "./microsandbox-runtime.js";

const ENV_KEY = "msb_trap_env_0123456789abcdef";
const PROFILE_KEY = "msb_trap_profile_0123456789abcdef";

test("MSB_* variables and $MSB_HOME/config.json never choose where a call goes", async () => {
  const heard: string[] = [];
  const trap = createServer((request, response) => {
    heard.push(`${request.method} ${request.url} (${request.headers.authorization})`);
    response.writeHead(500, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { code: "internal_error", message: "this is the trap" } }));
  });
  trap.on("upgrade", (request, socket) => {
    heard.push(`UPGRADE ${request.url} (${request.headers.authorization})`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
  const trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
  const home = await mkdtemp(join(tmpdir(), "msb-home-"));
  const config = join(home, "config.json");
  await writeFile(
    config,
    JSON.stringify({
      active_profile: "trap",
      profiles: { trap: { backend: "cloud", url: trapUrl, api_key_ref: `inline:${PROFILE_KEY}` } },
    }),
  );
  const planted: Record<string, string> = {
    MSB_BACKEND: "cloud",
    MSB_API_URL: trapUrl,
    MSB_API_KEY: ENV_KEY,
    MSB_PROFILE: "trap",
    MSB_HOME: home,
    MSB_CONFIG_PATH: config,
  };
  const saved = Object.fromEntries(Object.keys(planted).map((name) => [name, process.env[name]]));
  Object.assign(process.env, planted);
  const emulator = await startMicrosandboxEmulator();
  try {
    const options = { backend: cloudOf(emulator), owner: "ambient" } as const;
    const runtime = new MicrosandboxRuntime(options);
    const handle = await runtime.launch({ labels: { probe: "ambient" }, env: { FROM_LAUNCH: "1" } });
    await runtime.writeFiles(handle, [{ path: "in/a.txt", content: "a" }]);
    assert.equal((await runtime.exec(handle, { shell: 'cat in/a.txt; printf "$FROM_LAUNCH"' })).stdout, "a1");
    for await (const _event of runtime.execStream(handle, { argv: ["echo", "streamed"] })) {
      // drained
    }
    const spawned = await runtime.spawn(handle, { argv: ["cat"] });
    await spawned.write("spawned");
    await spawned.closeStdin();
    assert.equal((await spawned.result).stdout, "spawned");
    assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "in/a.txt")), "a");
    await runtime.mkdir(handle, "made");
    assert.equal((await runtime.stat(handle, "made")).kind, "directory");
    assert.ok((await runtime.listDir(handle, ".")).some((entry) => entry.name === "made"));
    await runtime.remove(handle, "made");
    assert.equal((await runtime.findByLabels({ probe: "ambient" })).length, 1);
    await runtime.stop(handle);
    await runtime.start(handle);
    const reopened = new MicrosandboxRuntime(options);
    const found = await reopened.getById(handle.id);
    assert.ok(found);
    assert.equal((await reopened.exec(found, { shell: 'printf "$FROM_LAUNCH"' })).stdout, "1");
    await reopened.destroy(found);

    assert.deepEqual(heard, [], "requests reached the trap the MSB_* variables and the profile point at");
    assert.deepEqual(emulator.unknownRoutes, []);
    assert.ok(emulator.requests.length > 20, `the workload made ${emulator.requests.length} requests`);
    for (const request of emulator.requests) {
      assert.equal(request.headers.authorization, `Bearer ${emulator.apiKey}`, request.route);
    }

    // The trap is armed: the SDK on its own defaults (env, then the profile) calls it.
    const sdk = await createMicrosandboxSdkLoader({ backend: "cloud" })();
    await sdk.Sandbox.get("anything").catch(() => undefined);
    assert.equal(heard.length, 1, "the SDK left to its defaults went to the trap");
    assert.match(
      heard[0] ?? "",
      new RegExp(`^GET /v1/sandboxes/by-name/anything \\(Bearer (${ENV_KEY}|${PROFILE_KEY})\\)$`),
    );
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await emulator.stop();
    await new Promise((resolve) => trap.close(resolve));
    await rm(home, { recursive: true, force: true });
  }
});
