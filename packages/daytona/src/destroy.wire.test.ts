// What a destroy costs on the wire: Daytona's DELETE answers while the sandbox
// is still destroying, so the verification waits as long as this runtime's
// deletes have taken to show, and one GET normally proves the sandbox gone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { emulatorOptions, NEWEST } from "../test/emulated.js";
import { DaytonaRuntime } from "./daytona-runtime.js";

const routes = (requests: readonly { route: string; status: number }[]) =>
  requests.map((request) => `${request.route} ${request.status}`);

test("a destroy is one DELETE and one GET that finds the sandbox gone", async () => {
  const emulator = await startDaytonaEmulator();
  try {
    const runtime = new DaytonaRuntime({ ...emulatorOptions(emulator, NEWEST), owner: "destroy-count" });
    const handle = await runtime.launch();
    emulator.resetRequests();
    await runtime.destroy(handle);
    assert.deepEqual(routes(emulator.requests), ["DELETE /api/sandbox/:id 200", "GET /api/sandbox/:id 404"]);
    assert.equal(emulator.liveSandboxes().length, 0);
  } finally {
    await emulator.stop();
  }
});

test("a delete slower than expected is looked at until it is gone, and the next destroy waits that long", async () => {
  const emulator = await startDaytonaEmulator({ transitionDelayMs: 600 });
  try {
    const runtime = new DaytonaRuntime({ ...emulatorOptions(emulator, NEWEST), owner: "destroy-count" });
    const [first, second] = await Promise.all([runtime.launch(), runtime.launch()]);
    emulator.resetRequests();
    await runtime.destroy(first);
    const looks = routes(emulator.requests).filter((route) => route.startsWith("GET /api/sandbox/:id"));
    assert.ok(looks.length > 1, `the first look found it destroying: ${looks.join(", ")}`);
    assert.equal(looks.at(-1), "GET /api/sandbox/:id 404");
    emulator.resetRequests();
    await runtime.destroy(second);
    assert.deepEqual(routes(emulator.requests), ["DELETE /api/sandbox/:id 200", "GET /api/sandbox/:id 404"]);
  } finally {
    await emulator.stop();
  }
});
