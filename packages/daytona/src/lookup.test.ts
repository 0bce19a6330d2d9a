// getById and findByLabels through the real SDK's low-level API (the oldest
// and the newest supported SDK) against the Daytona emulator: ownership
// re-checked, every page walked, foreign sandboxes never returned.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { type DaytonaEmulator, startDaytonaEmulator } from "@sandport/testkit/emulators/daytona";
import { emulatorOptions, SDKS } from "../test/emulated.js";
import { DaytonaRuntime } from "./daytona-runtime.js";
import type { DaytonaHandle } from "./handle.js";

const LIST = "GET /api/sandbox";

for (const sdk of SDKS) {
  describe(`lookups with ${sdk.label}`, () => {
    let emulator: DaytonaEmulator;
    let runtime: DaytonaRuntime;
    let launched: DaytonaHandle[];
    let foreign: string[];

    before(async () => {
      emulator = await startDaytonaEmulator({ pageSize: 2 });
      runtime = new DaytonaRuntime({ ...emulatorOptions(emulator, sdk), owner: "lookups" });
      launched = [];
      for (const team of ["a", "a", "b"]) launched.push(await runtime.launch({ labels: { team, pool: "shared" } }));
      foreign = [
        await emulator.seedForeignSandbox({ team: "a", pool: "shared", [OWNER_LABEL]: "someone-else" }),
        await emulator.seedForeignSandbox({ team: "a", pool: "shared" }),
      ];
    });

    after(() => emulator.stop());

    test("getById: ours is a handle with the caller's labels; absent is undefined; foreign is FOREIGN_SANDBOX", async () => {
      const [first] = launched;
      assert.ok(first);
      emulator.resetRequests();
      const found = await runtime.getById(first.id);
      assert.deepEqual(found, first, "labels without reserved or SDK labels, createdAt as launched");
      assert.deepEqual(
        emulator.requests.map((request) => request.route),
        ["GET /api/sandbox/:id"],
      );
      assert.equal(await runtime.getById("0d9f6a35-0000-4000-8000-000000000000"), undefined);
      for (const id of foreign) await expectCode(runtime.getById(id), "FOREIGN_SANDBOX");
      const fresh = new DaytonaRuntime({ ...emulatorOptions(emulator, sdk), owner: "lookups" });
      const reattached = await fresh.getById(first.id);
      assert.ok(reattached);
      assert.equal((await fresh.exec(reattached, { argv: ["true"] })).exitCode, 0, "a new instance uses the handle");
    });

    test("findByLabels walks every page, checks every row, and never returns a foreign sandbox", async () => {
      emulator.resetRequests();
      const teamA = await runtime.findByLabels({ team: "a" });
      assert.deepEqual(
        teamA.map((found) => found.id).sort(),
        launched
          .slice(0, 2)
          .map((handle) => handle.id)
          .sort(),
      );
      const everything = await runtime.findByLabels({});
      assert.deepEqual(everything.map((found) => found.id).sort(), launched.map((handle) => handle.id).sort());
      assert.ok(emulator.countRequests(LIST) >= 3, "more than one page was read");
      const query = new URL(emulator.requests[0]?.path ?? "", emulator.url).searchParams;
      assert.deepEqual(JSON.parse(query.get("labels") ?? "{}"), { team: "a", [OWNER_LABEL]: "lookups" });
      assert.equal(query.get("includeErroredDeleted"), "true", "sandboxes in state error are listed too");
      assert.deepEqual(await runtime.findByLabels({ team: "nobody" }), []);
      const byKey = await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: "no-such-key" });
      assert.deepEqual(byKey, []);
      emulator.resetRequests();
      assert.deepEqual(await runtime.findByLabels({ [OWNER_LABEL]: "someone-else" }), [], "another owner's query");
      assert.equal(emulator.countRequests(), 0, "answered without asking");
      await expectCode(runtime.findByLabels(undefined as never), "INVALID_REQUEST");
    });

    test("a 429 or 5xx on a page is retried; a persistent failure is typed, never a partial list", async () => {
      emulator.resetRequests();
      emulator.injectFault({ route: LIST, fault: { kind: "status", status: 503 } });
      emulator.injectFault({ route: LIST, fault: { kind: "status", status: 429 } });
      const found = await runtime.findByLabels({ pool: "shared" });
      assert.equal(found.length, 3);
      assert.equal(emulator.countRequests(LIST), 4, "two pages, each refused once");
      emulator.injectFault({ route: LIST, fault: { kind: "status", status: 500 }, times: 3 });
      await expectCode(runtime.findByLabels({ pool: "shared" }), "PROVIDER_UNAVAILABLE");
      emulator.clearFaults();
    });
  });
}
