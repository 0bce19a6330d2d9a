// Page walking, verified destroy, background work and reclaiming abandoned launches.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { toSandportError } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import { BackgroundTasks } from "./background-tasks.js";
import { collectPages } from "./collect-pages.js";
import { confirmGone } from "./confirm-gone.js";
import { isOutcomeUnknown, launchFailure, launchReclaimer, reclaimAbandonedLaunch } from "./reclaim-launch.js";

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

describe("reclaimAbandonedLaunch", () => {
  const setup = () => {
    const destroyed: string[] = [];
    const condemned = new Set<string>();
    const background = new BackgroundTasks((error) => toSandportError(error, "acme"));
    const common = {
      idOf: (created: { id: string }) => created.id,
      launchKey: "key-1",
      destroy: async (id: string) => {
        destroyed.push(id);
      },
      condemned,
      background,
      cleanupMs: 10_000,
    };
    return { destroyed, condemned, background, common };
  };
  const aborted = new SandportError({ code: "ABORTED", message: "caller aborted" });

  test("a create that lands after the caller gave up is destroyed; the key is hidden meanwhile", async () => {
    const { destroyed, condemned, background, common } = setup();
    let land: (value: { id: string }) => void = () => {};
    const creation = new Promise<{ id: string }>((resolve) => {
      land = resolve;
    });
    reclaimAbandonedLaunch({ ...common, creation, error: aborted, created: false, findByLaunchKey: async () => [] });
    assert.ok(condemned.has("key-1"));
    land({ id: "sb-late" });
    await background.settle();
    assert.deepEqual(destroyed, ["sb-late"]);
    assert.equal(condemned.has("key-1"), false);
  });

  test("launchReclaimer binds a runtime's settings once; each launch brings its own facts", async () => {
    const { destroyed, background, common } = setup();
    const { idOf: _idOf, launchKey: _key, ...settings } = common;
    const reclaim = launchReclaimer({ ...settings, findByLaunchKey: async () => [] });
    reclaim({
      creation: Promise.resolve({ name: "sb-a" }),
      idOf: (made) => made.name,
      launchKey: "a",
      error: aborted,
      created: true,
    });
    await background.settle();
    assert.deepEqual(destroyed, ["sb-a"]);
  });

  test("a create whose outcome is unknown is searched for by launch key", async () => {
    const { destroyed, background, common } = setup();
    const creation = Promise.reject(new Error("socket hang up"));
    reclaimAbandonedLaunch({
      ...common,
      creation,
      error: aborted,
      created: false,
      findByLaunchKey: async (key) => (key === "key-1" ? ["sb-orphan"] : []),
    });
    await background.settle();
    assert.deepEqual(destroyed, ["sb-orphan"]);
  });

  test("a create refused while the caller still waited is left to the caller", async () => {
    const { destroyed, background, common } = setup();
    let searched = false;
    reclaimAbandonedLaunch({
      ...common,
      creation: Promise.reject(Object.assign(new Error("bad template"), { status: 400 })),
      error: new SandportError({ code: "INVALID_REQUEST", message: "bad template" }),
      created: false,
      findByLaunchKey: async () => {
        searched = true;
        return [];
      },
    });
    assert.deepEqual(await background.settle(), []);
    assert.deepEqual(destroyed, []);
    assert.equal(searched, false);
  });

  test("outcome-unknown rules", () => {
    assert.equal(isOutcomeUnknown(Object.assign(new Error("x"), { status: 502 })), true);
    assert.equal(isOutcomeUnknown(Object.assign(new Error("x"), { status: 503 })), false);
    assert.equal(isOutcomeUnknown(Object.assign(new Error("x"), { status: 400 })), false);
    assert.equal(isOutcomeUnknown(new Error("other side closed")), true);
    assert.equal(isOutcomeUnknown(new SandportError({ code: "AUTH", message: "no" })), false);
  });

  test("launchFailure: the launch key always, the hint to search for it only when the outcome is unknown", () => {
    const vendor = new Error("socket hang up");
    const mapped = new SandportError({
      code: "PROVIDER_UNAVAILABLE",
      provider: "p",
      message: "p launch failed: socket hang up",
      cause: vendor,
      retryAfterMs: 500,
      details: { operation: "launch" },
    });
    const unknown = launchFailure(vendor, mapped, "key-9");
    assert.equal(unknown.code, "PROVIDER_UNAVAILABLE");
    assert.equal(unknown.provider, "p");
    assert.equal(unknown.cause, vendor);
    assert.equal(unknown.retryAfterMs, 500);
    assert.match(unknown.message, /search launch key key-9\)$/);
    assert.deepEqual(unknown.details, { operation: "launch", launchKey: "key-9", outcomeUnknown: true });
    const refused = launchFailure(vendor, new SandportError({ code: "AUTH", provider: "p", message: "denied" }), "k");
    assert.deepEqual(
      [refused.message, refused.details.outcomeUnknown, refused.details.launchKey],
      ["denied", false, "k"],
    );
    assert.equal(
      launchFailure(vendor, mapped, "k", { outcomeUnknown: false }).details.outcomeUnknown,
      false,
      "the adapter may know better",
    );
  });
});

describe("launchFailure", () => {
  test("an unknown outcome names the launch key to search; a refusal keeps its code and may add a hint", () => {
    const vendor = new Error("socket hang up");
    const lost = launchFailure(
      vendor,
      new SandportError({
        code: "PROVIDER_UNAVAILABLE",
        provider: "acme",
        message: "acme launch failed: socket hang up",
      }),
      "key-1",
    );
    assert.equal(
      lost.message,
      "acme launch failed: socket hang up (the sandbox may exist anyway: search launch key key-1)",
    );
    assert.deepEqual(
      [lost.code, lost.provider, lost.retryable, lost.cause],
      ["PROVIDER_UNAVAILABLE", "acme", true, vendor],
    );
    assert.deepEqual(lost.details, { launchKey: "key-1", outcomeUnknown: true });
    const refused = launchFailure(
      vendor,
      new SandportError({ code: "INVALID_REQUEST", message: "taken", details: { status: 409 } }),
      "key-2",
      { hint: "a launch key is used once" },
    );
    assert.equal(refused.message, "taken (a launch key is used once)");
    assert.deepEqual(refused.details, { status: 409, launchKey: "key-2", outcomeUnknown: false });
  });
});
