// The wire supplement: sandboxClass and warmPoolId, which the API answers on
// every sandbox, read through the SDK's low-level API (the oldest supported
// SDK's Sandbox class does not copy them), and the regression test that tells
// when that supplement can go.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { emulated, NEWEST, OLDEST } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "details-tests" }, OLDEST);

test("sandboxDetails reads state, sandboxClass and warmPoolId from the API (one request), with the oldest SDK", async () => {
  const handle = await runtime.launch();
  emulator.resetRequests();
  assert.deepEqual(await runtime.sandboxDetails(handle), {
    id: handle.id,
    state: "started",
    sandboxClass: "container",
    warmPoolId: undefined,
  });
  assert.deepEqual(
    emulator.requests.map((request) => request.route),
    ["GET /api/sandbox/:id"],
  );
  const foreign = await emulator.seedForeignSandbox({});
  await expectCode(runtime.sandboxDetails({ id: foreign, provider: "daytona", labels: {} }), "FOREIGN_SANDBOX");
  await runtime.destroy(handle);
  await expectCode(runtime.sandboxDetails(handle), "NOT_FOUND");
});

test("regression: the oldest supported SDK's Sandbox drops sandboxClass and warmPoolId (retire sandboxDetails' supplement once it keeps them)", async () => {
  const source = await startDaytonaEmulator();
  try {
    for (const [sdk, copies] of [
      [OLDEST, false],
      [NEWEST, true],
    ] as const) {
      const module = await sdk.load();
      const client = new module.Daytona({
        ...source.sdkOptions,
        useDeprecatedPolling: true,
        otelEnabled: false,
        requestTimeoutMs: 10_000,
      });
      const created = (await client.create({} as never, { timeout: 30 })) as unknown as Record<string, unknown>;
      const wire = (await (
        await fetch(`${source.apiUrl}/sandbox/${created.id}`, { headers: { authorization: `Bearer ${source.apiKey}` } })
      ).json()) as Record<string, unknown>;
      assert.equal(wire.sandboxClass, "container", "the wire carries sandboxClass");
      assert.ok("warmPoolId" in wire, "the wire carries warmPoolId");
      assert.equal(
        "sandboxClass" in created && created.sandboxClass !== undefined,
        copies,
        `${sdk.label} copies sandboxClass`,
      );
      assert.equal("warmPoolId" in created, copies, `${sdk.label} copies warmPoolId`);
    }
  } finally {
    await source.stop();
  }
});
