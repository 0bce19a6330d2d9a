// The free port a test's sandbox server binds: outside the kernel's ephemeral range, and free.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { ephemeralRange, unusedPort } from "./unused-port.js";

test("unusedPort: a port a server can bind, never one of the ephemeral range that listen(0) hands out", async () => {
  const [low, high] = ephemeralRange();
  assert.ok(low <= high && low > 0, `a range: ${low}-${high}`);
  const ports = new Set<number>();
  for (let index = 0; index < 20; index++) {
    const port = await unusedPort();
    assert.ok(port < low || port > high, `${port} is in the ephemeral range ${low}-${high}`);
    assert.ok(port >= 10_000 && port <= 65_535, `${port}`);
    ports.add(port);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  }
  assert.ok(ports.size > 1, "picked at random, not one fixed port");
});
