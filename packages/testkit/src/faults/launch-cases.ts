import assert from "node:assert/strict";
import { LAUNCH_KEY_LABEL, type SandboxHandle } from "@sandport/core";
import { waitFor } from "../assertions/index.js";
import type { WireFaultContext } from "./fault-context.js";
import { expectTypedFailure } from "./observe.js";

const ONE_STEP = { launch: {}, steps: [{ argv: ["true"] }] };

/**
 * Waits until the emulator is done with every request on `route` since the last reset (answered,
 * or given up because the caller left), so a sandbox a late create makes is there for the case's
 * leak check, not the next case's.
 */
async function createHandled<H extends SandboxHandle>(context: WireFaultContext<H>, route: string): Promise<void> {
  await waitFor(
    () =>
      context.emulator.requests.every((request) => request.route !== route || request.endedAt !== undefined) ||
      undefined,
    { timeoutMs: context.hangMs + context.deadlineMs * 4, what: `the emulator to be done with ${route}` },
  );
}

/** The cases that fault the create request. */
export function declareLaunchCases<H extends SandboxHandle>(context: WireFaultContext<H>): void {
  const { routes } = context.options;
  const attempts = context.options.attempts ?? {};
  const outcomes = context.options.outcomes ?? {};

  context.case(
    "create-rate-limited",
    "429 with Retry-After on create is RATE_LIMITED, retryable, nothing created; the orchestrator launches again",
    async () => {
      const times = attempts.createRateLimited ?? 1;
      const { emulator, runtime } = context;
      emulator.resetRequests();
      emulator.injectFault({
        route: routes.create,
        fault: { kind: "status", status: 429, retryAfterSeconds: 0 },
        times,
      });
      const refused = expectTypedFailure(await context.call(runtime.launch({}), "a rate-limited launch"), "launch", [
        "RATE_LIMITED",
      ]);
      assert.equal(refused.retryable, true);
      assert.notEqual(refused.details.outcomeUnknown, true, "a 429 says nothing was created");
      assert.equal(emulator.countRequests(routes.create), times, "one try and the SDK's retries, no more");
      emulator.resetRequests();
      emulator.injectFault({
        route: routes.create,
        fault: { kind: "status", status: 429, retryAfterSeconds: 0 },
        times,
      });
      assert.equal((await context.run(ONE_STEP)).ok, true);
      assert.equal(emulator.countRequests(routes.create), times + 1, "refused, then launched on the next attempt");
    },
  );

  context.case(
    "create-refused",
    "5xx on create is PROVIDER_UNAVAILABLE, retryable; the orchestrator reconciles an unknown outcome, then launches",
    async () => {
      const { emulator, runtime } = context;
      emulator.injectFault({
        route: routes.create,
        fault: { kind: "status", status: 503 },
        times: attempts.createUnavailable ?? 1,
      });
      const refused = expectTypedFailure(await context.call(runtime.launch({}), "a launch answered 503"), "launch", [
        "PROVIDER_UNAVAILABLE",
      ]);
      assert.equal(refused.retryable, true);
      assert.equal(
        refused.details.outcomeUnknown === true,
        outcomes.createUnavailableUnknown ?? false,
        "outcome of a 503",
      );
      emulator.clearFaults();
      emulator.injectFault({
        route: routes.create,
        fault: { kind: "status", status: 500 },
        times: attempts.createServerError ?? 1,
      });
      const events: string[] = [];
      const result = await context.run(ONE_STEP, { onEvent: (event) => events.push(event.type) });
      assert.equal(result.ok, true);
      if (outcomes.createServerErrorUnknown ?? true) assert.ok(events.includes("launch-reconciled"), events.join(", "));
    },
  );

  context.case(
    "create-lost-response",
    "a create whose answer is lost is an unknown outcome; its sandbox is found by launch key and destroyed",
    async () => {
      const { emulator, runtime } = context;
      const deletesBefore = emulator.countRequests(routes.delete);
      emulator.injectFault({ route: routes.create, fault: { kind: "lost-response" } });
      const lost = expectTypedFailure(
        await context.call(runtime.launch({ labels: { case: "lost" } }), "a launch whose answer was lost"),
        "launch",
        ["PROVIDER_UNAVAILABLE"],
      );
      assert.equal(lost.details.outcomeUnknown, true);
      assert.equal(typeof lost.details.launchKey, "string", "the error names the launch key to search");
      const search = runtime.findByLabels?.({ [LAUNCH_KEY_LABEL]: lost.details.launchKey as string });
      assert.ok(search, "the runtime can search by launch key");
      const orphans = await context.call(search, "the search by launch key");
      assert.ok(orphans.ok);
      if (orphans.value.length === 0) {
        // The runtime searches by launch key too, in the background, and may have destroyed it first.
        const settled = await context.call(runtime.settle(), "runtime.settle()");
        assert.ok(settled.ok);
        assert.deepEqual(settled.value, [], "the runtime's own cleanup reported no failure");
        assert.ok(
          emulator.countRequests(routes.delete) > deletesBefore,
          "the lost create did make a sandbox: the caller found none, so the runtime's own cleanup deleted it",
        );
      } else {
        assert.equal(orphans.value.length, 1, "the lost create made one sandbox");
      }
      for (const orphan of orphans.value) await context.destroy(orphan);

      emulator.injectFault({ route: routes.create, fault: { kind: "lost-response" } });
      let destroyed: string[] = [];
      const result = await context.run(ONE_STEP, {
        onEvent: (event) => {
          if (event.type === "launch-reconciled") destroyed = [...event.destroyed];
        },
      });
      assert.equal(result.ok, true);
      assert.equal(destroyed.length, 1, "the orchestrator found the orphan by its launch key and destroyed it");
    },
  );

  context.case(
    "create-dropped",
    "a create whose connection dropped before it was processed is typed (or repeated); the orchestrator launches",
    async () => {
      const { emulator, runtime } = context;
      emulator.injectFault({ route: routes.create, fault: { kind: "drop" } });
      const outcome = await context.call(runtime.launch({}), "a launch whose connection dropped");
      if (outcome.ok) await context.destroy(outcome.value);
      else expectTypedFailure(outcome, "launch", ["PROVIDER_UNAVAILABLE"]);
      emulator.injectFault({ route: routes.create, fault: { kind: "drop" } });
      assert.equal((await context.run(ONE_STEP)).ok, true);
    },
  );

  context.case(
    "create-past-deadline",
    "a create slower than the launch's deadline rejects DEADLINE_EXCEEDED before its answer; nothing is left unreported",
    async () => {
      const { emulator, runtime } = context;
      emulator.resetRequests();
      emulator.injectFault({ route: routes.create, fault: { kind: "latency", ms: context.deadlineMs * 4 } });
      const outcome = await context.call(
        runtime.launch({ labels: { case: "deadline" } }, { timeoutMs: context.deadlineMs }),
        "a launch past its deadline",
      );
      const answered = emulator.requests.some((request) => request.route === routes.create && request.status !== 0);
      expectTypedFailure(outcome, "launch", ["DEADLINE_EXCEEDED"]);
      assert.equal(answered, false, "the launch rejected before the emulator answered its create, not after");
      await createHandled(context, routes.create);
    },
  );

  context.case(
    "create-aborted",
    "a launch aborted while its create is in flight rejects ABORTED at once; nothing is left unreported",
    async () => {
      const { emulator, runtime } = context;
      emulator.resetRequests();
      emulator.injectFault({ route: routes.create, fault: { kind: "latency", ms: context.deadlineMs * 4 } });
      const controller = new AbortController();
      const launching = context.call(
        runtime.launch({ labels: { case: "aborted" } }, { signal: controller.signal }),
        "an aborted launch",
      );
      await waitFor(() => emulator.countRequests(routes.create) > 0 || undefined, { what: "the create to be sent" });
      controller.abort(new Error("gave up"));
      const outcome = await launching;
      const answered = emulator.requests.some((request) => request.route === routes.create && request.status !== 0);
      expectTypedFailure(outcome, "launch", ["ABORTED"]);
      assert.equal(answered, false, "the launch rejected before the emulator answered its create, not after");
      await createHandled(context, routes.create);
    },
  );

  context.case(
    "list-refused",
    "429 and 5xx on list pages are retried (reads); a lasting failure is typed",
    async () => {
      const { emulator, runtime } = context;
      const launched = [];
      for (let index = 0; index < 3; index++) launched.push(await context.launch("list-refused", { pool: "faulted" }));
      try {
        emulator.resetRequests();
        emulator.injectFault({ route: routes.list, fault: { kind: "status", status: 503 } });
        emulator.injectFault({ route: routes.list, fault: { kind: "status", status: 429, retryAfterSeconds: 0 } });
        const search = runtime.findByLabels?.({ pool: "faulted" });
        assert.ok(search, "the runtime can search by labels");
        const found = await context.call(search, "a search whose pages were refused");
        assert.ok(found.ok, `the search failed: ${found.ok ? "" : String(found.error)}`);
        assert.deepEqual(found.value.map((handle) => handle.id).sort(), launched.map((handle) => handle.id).sort());
        if (context.options.listRequests !== undefined) {
          assert.equal(emulator.countRequests(routes.list), context.options.listRequests, "list requests");
        }
        emulator.injectFault({ route: routes.list, fault: { kind: "status", status: 500 }, times: 50 });
        const lasting = runtime.findByLabels?.({ pool: "faulted" }) as Promise<readonly H[]>;
        expectTypedFailure(await context.call(lasting, "a search whose pages keep failing"), "findByLabels", [
          "PROVIDER_UNAVAILABLE",
        ]);
      } finally {
        for (const handle of launched) await context.destroy(handle);
      }
    },
  );
}
