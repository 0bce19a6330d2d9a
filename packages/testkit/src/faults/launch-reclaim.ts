/**
 * `describeLaunchReclaim` (in `@sandport/testkit/faults`): one suite, run by every remote
 * adapter through its real SDK against its emulator, proving that a launch
 * whose outcome is unknown never leaves a sandbox behind: a launch cut off
 * by its deadline, by an abort, or by a connection dropped after the
 * emulator made the sandbox is reclaimed in the background (the emulator's
 * own list is empty after `settle()`, which reports no failure), a workload
 * through the orchestrator says nothing leaked, and a launch against an
 * endpoint that refuses the connection says that nothing was sent.
 *
 * @module
 */

import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { SandboxOrchestrator } from "@sandport/core";
import { expectCode, unusedPort, waitFor } from "../assertions/index.js";
import type { ProviderEmulator } from "../emulators/harness/types.js";
import type { SettlingRuntime } from "./options.js";

/** What the suite needs of one adapter. */
export interface LaunchReclaimTarget {
  /** The emulator, started. */
  readonly emulator: ProviderEmulator;
  /** The route name of the emulator's create request (faults are armed on it; it is counted). */
  readonly createRoute: string | RegExp;
  /** A runtime against the emulator through the real SDK. */
  readonly runtime: SettlingRuntime;
  /**
   * A runtime whose SDK is pointed at `url`, an address on loopback where
   * nothing listens. Absent when the SDK takes no endpoint.
   */
  readonly runtimeAt?: (url: string) => SettlingRuntime;
  /**
   * Why the SDK cannot tell a refused connection from one reset after the
   * request left (so the outcome stays unknown): the unreachable case is then
   * skipped with this reason.
   */
  readonly unreachableLooksLikeReset?: string;
  /** States of the emulator's list that mean the sandbox is on its way out (Daytona's `destroying`). */
  readonly goneStates?: readonly string[];
  /** Stops what `start` started beyond the emulator (the emulator is stopped by the suite). */
  readonly stop?: () => Promise<void>;
}

/** Options of {@link describeLaunchReclaim}. */
export interface LaunchReclaimSuiteOptions {
  /** Suite name, e.g. `"E2BRuntime (real e2b SDK → E2B emulator)"`. */
  readonly name: string;
  /** Starts the emulator and builds the runtimes, once for the suite. */
  readonly start: () => Promise<LaunchReclaimTarget>;
  /**
   * The launch deadline for the deadline case, in ms: long enough for the
   * create request to reach the emulator once the SDK is warm. Default 1 500.
   */
  readonly deadlineMs?: number;
  /** How long the emulator holds a create's answer in the deadline and abort cases, in ms. Default 4 000. */
  readonly answerHeldMs?: number;
  /** When set, the whole suite is skipped with this reason (the emulator cannot run here). */
  readonly unavailable?: string;
}

/**
 * Declares the launch-reclaim suite (node:test `describe`). Each case arms a
 * fault on the create, after which the emulator has made the sandbox, and
 * asserts, after `runtime.settle()`, that no sandbox of ours is left in the
 * emulator's own list and that the cleanup reported no failure.
 */
export function describeLaunchReclaim(options: LaunchReclaimSuiteOptions): void {
  const deadlineMs = options.deadlineMs ?? 1_500;
  const answerHeldMs = options.answerHeldMs ?? 4_000;
  describe(`${options.name}: a launch whose outcome is unknown is reclaimed`, { skip: options.unavailable }, () => {
    let target: LaunchReclaimTarget;
    const ours = () =>
      target.emulator
        .liveSandboxes()
        .filter((sandbox) => !sandbox.foreign && !(target.goneStates ?? []).includes(sandbox.state));

    before(async () => {
      target = await options.start();
      // Warm: the SDK loaded and whatever the runtime resolves once is resolved, so a launch's create
      // is its first request and goes out well within the deadline case's budget.
      const warm = await target.runtime.launch({});
      await target.runtime.destroy(warm);
    });

    afterEach(async () => {
      target.emulator.clearFaults();
      assert.deepEqual(await target.runtime.settle(), [], "the background cleanup reported a failure");
      assert.deepEqual(ours(), [], "a sandbox of ours is left running");
    });

    after(async () => {
      await target?.stop?.();
      await target?.emulator.stop();
    });

    test("cut off by its deadline after the create was made: DEADLINE_EXCEEDED, then destroyed in the background", async () => {
      target.emulator.resetRequests();
      target.emulator.injectFault({ route: target.createRoute, fault: { kind: "late-response", ms: answerHeldMs } });
      const launching = target.runtime.launch({}, { timeoutMs: deadlineMs });
      await expectCode(launching, "DEADLINE_EXCEEDED");
      assert.equal(target.emulator.countRequests(target.createRoute), 1, "the create reached the emulator");
      assert.equal(ours().length, 1, "the emulator made the sandbox");
    });

    test("cut off by an abort after the create was made: ABORTED, then destroyed in the background", async () => {
      assert.deepEqual(ours(), [], "nothing of ours before the launch");
      target.emulator.injectFault({ route: target.createRoute, fault: { kind: "late-response", ms: answerHeldMs } });
      const controller = new AbortController();
      const launching = target.runtime.launch({}, { signal: controller.signal });
      launching.catch(() => undefined);
      await waitFor(() => ours().length === 1, { what: "the emulator to make the sandbox", timeoutMs: 30_000 });
      controller.abort(new Error("the caller gave up"));
      await expectCode(launching, "ABORTED");
    });

    test("its connection dropped after the create was made: outcome unknown, then destroyed in the background", async () => {
      target.emulator.injectFault({ route: target.createRoute, fault: { kind: "lost-response" } });
      const error = await expectCode(target.runtime.launch({}), [
        "PROVIDER_UNAVAILABLE",
        "DEADLINE_EXCEEDED",
        "UNEXPECTED",
      ]);
      assert.equal(error.details.outcomeUnknown, true, error.message);
      assert.equal(typeof error.details.launchKey, "string");
    });

    test("through the orchestrator, a dropped create is cleaned up before the workload returns: nothing leaked", async () => {
      target.emulator.injectFault({ route: target.createRoute, fault: { kind: "lost-response" } });
      const orchestrator = new SandboxOrchestrator(target.runtime, {
        retry: { initialDelayMs: 20, maxDelayMs: 200, jitter: "none" },
      });
      const result = await orchestrator.run({ launch: {} });
      assert.deepEqual(result.possibleLeaks, [], "the workload waited for its launch's cleanup");
      assert.equal(result.teardown.outcome, "destroyed");
      assert.deepEqual(ours(), [], "nothing of ours left when the workload returned");
    });

    test("a launch Sandport refuses itself: INVALID_REQUEST before any create, nothing sent (no details.sent)", async () => {
      target.emulator.resetRequests();
      const refused = await expectCode(target.runtime.launch({ env: { "BAD NAME": "x" } }), "INVALID_REQUEST");
      assert.equal(refused.details.sent, undefined, "only a request the provider refused says sent: true");
      assert.equal(target.emulator.countRequests(target.createRoute), 0);
    });

    test("an endpoint that refuses the connection: PROVIDER_UNAVAILABLE, unreachable, nothing sent, no leak warning", async (context) => {
      if (!target.runtimeAt || target.unreachableLooksLikeReset !== undefined) {
        context.skip(target.unreachableLooksLikeReset ?? "the SDK takes no endpoint");
        return;
      }
      const closed = target.runtimeAt(`http://127.0.0.1:${await unusedPort()}`);
      const error = await expectCode(closed.launch({}, { timeoutMs: 30_000 }), "PROVIDER_UNAVAILABLE");
      assert.equal(error.details.sent, false, error.message);
      assert.notEqual(error.details.outcomeUnknown, true, "nothing was sent: the outcome is known");
      assert.match(error.message, /unreachable/);
      assert.doesNotMatch(error.message, /may exist anyway|may have leaked/);
      assert.deepEqual(await closed.settle(), []);
    });
  });
}
