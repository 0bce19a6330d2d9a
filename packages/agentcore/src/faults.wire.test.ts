// Wire faults through the real SDK: an Invoke that runs a command is sent once
// whatever comes back (a 500, a 429, a lost answer), so no command runs twice;
// what is safe to repeat (a read, a Stop, a Start with its clientToken) is
// retried by the SDK; foreign sessions are never touched.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";

const { emulator, runtime } = await emulated({ owner: "faults" });
const INVOKE = "InvokeCodeInterpreter";

for (const fault of [
  { kind: "status", status: 500 },
  { kind: "status", status: 429 },
  { kind: "lost-response" },
] as const) {
  test(`an exec whose Invoke meets ${fault.kind === "status" ? `HTTP ${fault.status}` : "a lost answer"} is sent once: the command never runs twice`, async () => {
    const handle = await runtime.launch({});
    try {
      const before = emulator.countRequests(INVOKE);
      // One fault only: a repeat by the SDK would get through and run the command (again).
      emulator.injectFault({ route: INVOKE, fault });
      const failed = await runtime.exec(handle, { shell: "echo ran >> count.txt" }).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(failed, "the exec rejects");
      await runtime.settle();
      const sent = emulator.countRequests(INVOKE) - before;
      const count = await runtime.exec(handle, { shell: "cat count.txt 2>/dev/null | wc -l" });
      const runs = Number(count.stdout.trim());
      if (fault.kind === "lost-response") {
        // The command ran, its answer was lost: it ran exactly once, and the kill sweep came after it.
        assert.equal(runs, 1, "the command ran once");
        await expectCode(() => Promise.reject(failed), "PROVIDER_UNAVAILABLE", "a lost answer");
      } else {
        assert.equal(runs, 0, "the refused command never ran, so it was never sent again");
        await expectCode(
          () => Promise.reject(failed),
          fault.status === 429 ? "RATE_LIMITED" : "PROVIDER_UNAVAILABLE",
          `HTTP ${fault.status}`,
        );
      }
      // The exec's one Invoke, then (only where the command may have run) the one kill sweep.
      assert.equal(sent, fault.kind === "status" && fault.status === 429 ? 1 : 2, `Invoke requests: ${sent}`);
    } finally {
      await runtime.destroy(handle);
    }
  });
}

test("a read whose Invoke meets a 500 is retried by the SDK and succeeds", async () => {
  const handle = await runtime.launch({});
  try {
    await runtime.writeFiles(handle, [{ path: "a.txt", content: "a" }]);
    emulator.injectFault({ route: INVOKE, fault: { kind: "status", status: 500 } });
    assert.equal(new TextDecoder().decode(await runtime.readFile(handle, "a.txt")), "a");
  } finally {
    await runtime.destroy(handle);
  }
});

test("a Start whose answer is lost is repeated with the same clientToken: one session", async () => {
  const before = emulator.liveSandboxes().length;
  emulator.injectFault({ route: "StartCodeInterpreterSession", fault: { kind: "lost-response" } });
  const handle = await runtime.launch({ labels: { lost: "start" } });
  try {
    assert.equal(emulator.countRequests("StartCodeInterpreterSession") >= 2, true);
    assert.equal(emulator.liveSandboxes().length, before + 1, "one session, not two");
    assert.deepEqual(
      (await runtime.findByLabels({ lost: "start" })).map((found) => found.id),
      [handle.id],
    );
  } finally {
    await runtime.destroy(handle);
  }
});

test("a Stop that meets a 500 or 429 is retried, and destroy still verifies the session terminated", async () => {
  const handle = await runtime.launch({});
  emulator.injectFault({ route: "StopCodeInterpreterSession", fault: { kind: "status", status: 500 } });
  emulator.injectFault({ route: "GetCodeInterpreterSession", fault: { kind: "status", status: 429 } });
  await runtime.destroy(handle);
  assert.equal(await runtime.getById(handle.id), undefined);
  assert.ok(!emulator.liveSandboxes().some((sandbox) => sandbox.id === handle.id));
});

test("a foreign session is never listed, reattached or stopped, even one whose name looks like ours", async () => {
  const foreign = await emulator.seedForeignSandbox({ name: "sandport_00000000_00000000" });
  await expectCode(() => runtime.getById(foreign), "FOREIGN_SANDBOX", "getById of a foreign session");
  await expectCode(
    () => runtime.destroy({ id: foreign, provider: "agentcore", labels: {} }),
    "FOREIGN_SANDBOX",
    "destroy of a foreign session",
  );
  assert.ok(!(await runtime.findByLabels({})).some((found) => found.id === foreign));
  assert.ok(
    emulator.liveSandboxes().some((sandbox) => sandbox.id === foreign),
    "the foreign session lives on",
  );
});
