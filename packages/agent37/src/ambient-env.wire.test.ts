// Agent37 ships no library, so nothing of its own reads the environment; this
// proves the runtime does not either. In a child process whose environment
// carries the names clients use (AGENT37_API_KEY, AGENT37_API_URL,
// AGENT37_BASE_URL, AGENT37_INSTANCE_ID), whose HOME holds an ~/.agent37
// config and whose working directory holds a .env, all pointing at a
// tripwire, a full workload must send every request to the emulator named in
// the options, and no request may carry a canary value.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { startAgent37Emulator } from "@sandport/testkit/emulators/agent37";

const CANARY_KEY = "sk_live_canary_0123456789abcdef";

test("AGENT37_* variables, ~/.agent37 and .env are never used: no request carries them or goes elsewhere", async () => {
  const tripped: string[] = [];
  const tripwire = createServer((request, response) => {
    tripped.push(`${request.method} ${request.url}`);
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => tripwire.listen(0, "127.0.0.1", resolve));
  const tripwireUrl = `http://127.0.0.1:${(tripwire.address() as AddressInfo).port}`;
  const scratch = await mkdtemp(join(tmpdir(), "sandport-agent37-ambient-"));
  await mkdir(join(scratch, ".agent37"));
  await writeFile(
    join(scratch, ".agent37", "config.json"),
    JSON.stringify({ apiKey: CANARY_KEY, apiUrl: tripwireUrl }),
  );
  await writeFile(join(scratch, ".env"), `AGENT37_API_KEY=${CANARY_KEY}\nAGENT37_API_URL=${tripwireUrl}\n`);
  const emulator = await startAgent37Emulator();
  try {
    const child = spawn(
      process.execPath,
      [
        "--import",
        import.meta.resolve("tsx"),
        fileURLToPath(new URL("../test/ambient-child.ts", import.meta.url)),
        emulator.baseUrl,
        emulator.apiKey,
      ],
      {
        cwd: scratch,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: scratch,
          AGENT37_API_KEY: CANARY_KEY,
          AGENT37_API_URL: tripwireUrl,
          AGENT37_BASE_URL: tripwireUrl,
          AGENT37_INSTANCE_ID: "a37canary0",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(code, 0, stderr);
    assert.equal(stdout, "ok");
    assert.deepEqual(tripped, [], "requests reached the tripwire the canaries point at");
    assert.deepEqual(emulator.unknownRoutes, []);
    assert.ok(emulator.requests.length > 8, `the workload made ${emulator.requests.length} requests`);
    for (const request of emulator.requests) {
      assert.ok(!request.path.includes(emulator.apiKey), `${request.route}: the key is in a URL`);
      for (const [name, value] of Object.entries(request.headers)) {
        assert.ok(!value.includes(CANARY_KEY), `${request.route} header ${name} carries the canary key`);
      }
    }
  } finally {
    await emulator.stop();
    await new Promise((resolve) => tripwire.close(resolve));
    await rm(scratch, { recursive: true, force: true });
  }
});
