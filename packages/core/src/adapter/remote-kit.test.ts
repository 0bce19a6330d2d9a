// Page walking, verified destroy and background work (reclaiming abandoned launches: reclaim-launch.test.ts).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { toSandportError } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import { BackgroundTasks } from "./background-tasks.js";
import { collectPages } from "./collect-pages.js";
import { confirmGone } from "./confirm-gone.js";

const retryable = () => new SandportError({ code: "PROVIDER_UNAVAILABLE", message: "502" });
const fatal = () => new SandportError({ code: "AUTH", message: "401" });

describe("collectPages", () => {
  test("walks every page, retrying a page that failed retryably", async () => {
    const pages = [[1, 2], [3], undefined];
    let failures = 1;
    const items = await collectPages(
      async () => {
        if (pages.length === 2 && failures-- > 0) throw retryable();
        return pages.shift();
      },
      { mapError: (error) => error as SandportError, retry: { initialDelayMs: 1, jitter: "none" } },
    );
    assert.deepEqual(items, [1, 2, 3]);
  });

  test("a page that fails for good ends the walk: never a partial list", async () => {
    let calls = 0;
    await assert.rejects(
      collectPages(
        async () => {
          calls++;
          if (calls === 2) throw fatal();
          return [calls];
        },
        { mapError: (error) => error as SandportError },
      ),
      (error) => SandportError.hasCode(error, "AUTH"),
    );
    assert.equal(calls, 2);
  });
});

describe("confirmGone", () => {
  test("gone once the probe says absent; still-present and check-failed otherwise", async () => {
    let checks = 0;
    assert.deepEqual(
      await confirmGone(async () => ++checks < 3, { until: Date.now() + 5_000, delaysMs: [0, 1, 1, 1] }),
      {
        gone: true,
      },
    );
    const present = await confirmGone(async () => true, { until: Date.now() + 5_000, delaysMs: [0, 1] });
    assert.deepEqual(present, { gone: false, reason: "still-present", last: undefined });
    const broken = await confirmGone(
      async () => {
        throw new Error("502");
      },
      { until: Date.now() + 5_000, delaysMs: [0] },
    );
    assert.equal(broken.gone === false && broken.reason, "check-failed");
  });

  test("a wait that ends past `until` (a blocked event loop) starts no check: the caller's deadline is near", async () => {
    let checks = 0;
    const until = Date.now() + 300;
    // While the second wait runs, the event loop is blocked until past `until`.
    setTimeout(() => {
      while (Date.now() < until + 50) {
        // Busy, as a loaded process is.
      }
    }, 20);
    const verdict = await confirmGone(
      async () => {
        checks++;
        return true;
      },
      { until, delaysMs: [0, 100] },
    );
    assert.deepEqual(verdict, { gone: false, reason: "still-present", last: undefined });
    assert.equal(checks, 1, "no check started after `until`");
  });
});

describe("BackgroundTasks", () => {
  test("failures reach onError at once and settle() once; a throwing hook loses nothing", async () => {
    const told: SandportError[] = [];
    const tasks = new BackgroundTasks(
      (error) => toSandportError(error, "acme"),
      (error) => {
        told.push(error);
        throw new Error("hook bug");
      },
    );
    tasks.track(async () => {
      throw new Error("cleanup failed");
    });
    tasks.track(async () => {});
    const failures = await tasks.settle();
    assert.deepEqual(
      failures.map((failure) => failure.message),
      ["cleanup failed"],
    );
    assert.equal(told.length, 1);
    assert.deepEqual(await tasks.settle(), [], "settle forgets what it returned");
  });
});
