// Reclaiming abandoned launches: what an abandoned or unanswered create made is found and destroyed.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { toSandportError } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import { BackgroundTasks } from "./background-tasks.js";
import {
  LISTING_TRUSTED_AFTER_MS,
  launchFailure,
  launchReclaimOf,
  ORPHAN_SEARCH_DELAYS_MS,
  reclaimAbandonedLaunch,
} from "./reclaim-launch.js";

/** A vendor error the fake adapter's mapper calls outcome-unknown: a gRPC status number, as Modal's SDK throws. */
class ClientError extends Error {
  constructor(readonly code: number) {
    super(`status ${code}`);
    this.name = "ClientError";
  }
}
/** The fake adapter's transport rules: DEADLINE_EXCEEDED (4), UNAVAILABLE (14) and CANCELLED (1) leave a create unknown. */
const outcomeUnknown = (error: unknown) => error instanceof ClientError && [1, 4, 14].includes(error.code);

const setup = (options: { cleanupMs?: number; listingTrustedAfterMs?: number } = {}) => {
  const destroyed: string[] = [];
  const condemned = new Set<string>();
  const background = new BackgroundTasks((error) => toSandportError(error, "acme"));
  const common = {
    idOf: (created: { id: string }) => created.id,
    launchKey: "key-1",
    destroy: async (id: string) => {
      destroyed.push(id);
    },
    outcomeUnknown,
    condemned,
    background,
    cleanupMs: options.cleanupMs ?? 10_000,
    listingTrustedAfterMs: options.listingTrustedAfterMs ?? 300,
  };
  return { destroyed, condemned, background, common };
};
const aborted = () => new SandportError({ code: "ABORTED", message: "caller aborted" });
const deadline = () => new SandportError({ code: "DEADLINE_EXCEEDED", message: "launch deadline" });

/** A listing that shows the sandbox from its `from`-th search on, recording when each search ran. */
function listing(from: number) {
  const searchedAt: number[] = [];
  return {
    searchedAt,
    find: async (key: string) => {
      searchedAt.push(Date.now());
      return key === "key-1" && searchedAt.length >= from ? ["sb-orphan"] : [];
    },
  };
}

describe("reclaimAbandonedLaunch", () => {
  test("a create that lands after the caller gave up is destroyed; the key is hidden meanwhile", async () => {
    const { destroyed, condemned, background, common } = setup();
    let land: (value: { id: string }) => void = () => {};
    const creation = new Promise<{ id: string }>((resolve) => {
      land = resolve;
    });
    const error = aborted();
    reclaimAbandonedLaunch({ ...common, creation, error, created: false, findByLaunchKey: async () => [] });
    assert.ok(condemned.has("key-1"));
    land({ id: "sb-late" });
    assert.deepEqual(await background.settle(), []);
    assert.deepEqual(destroyed, ["sb-late"]);
    assert.equal(condemned.has("key-1"), false);
    assert.deepEqual(await launchReclaimOf(error), {
      launchKey: "key-1",
      outcome: "destroyed",
      destroyed: ["sb-late"],
    });
  });

  test("the adapter's mapper decides the outcome: a create cut by its own gRPC deadline (status 4) is searched for", async () => {
    const { destroyed, background, common } = setup();
    const { find } = listing(1);
    const creation = Promise.reject(new ClientError(4));
    reclaimAbandonedLaunch({ ...common, creation, error: deadline(), created: false, findByLaunchKey: find });
    assert.deepEqual(await background.settle(), []);
    assert.deepEqual(destroyed, ["sb-orphan"]);
  });

  test("a create the mapper says failed with a known outcome is not searched for", async () => {
    const { destroyed, background, common } = setup();
    const { searchedAt, find } = listing(1);
    const error = deadline();
    reclaimAbandonedLaunch({
      ...common,
      creation: Promise.reject(new ClientError(3)),
      error,
      created: false,
      findByLaunchKey: find,
    });
    assert.deepEqual(await background.settle(), []);
    assert.deepEqual([destroyed, searchedAt.length], [[], 0]);
    assert.equal((await launchReclaimOf(error))?.outcome, "none");
  });

  test("the search goes on with backoff until the sandbox shows up in the listing", async () => {
    const { destroyed, background, common } = setup({ listingTrustedAfterMs: 60_000 });
    const { searchedAt, find } = listing(5);
    reclaimAbandonedLaunch({
      ...common,
      creation: Promise.reject(new ClientError(14)),
      error: aborted(),
      created: false,
      findByLaunchKey: find,
    });
    assert.deepEqual(await background.settle(), []);
    assert.deepEqual(destroyed, ["sb-orphan"]);
    assert.equal(searchedAt.length, 5);
    const gaps = searchedAt.slice(1).map((at, index) => at - (searchedAt[index] as number));
    for (const [index, gap] of gaps.entries()) {
      assert.ok(gap >= (ORPHAN_SEARCH_DELAYS_MS[index] as number) - 5, `gap ${index} (${gap} ms) follows the backoff`);
    }
  });

  test("a create that failed with an unknown outcome while the caller waited is searched for too", async () => {
    const { destroyed, condemned, background, common } = setup();
    const { find } = listing(2);
    const vendor = new ClientError(14);
    const mapped = new SandportError({ code: "PROVIDER_UNAVAILABLE", provider: "acme", message: "unavailable" });
    const error = launchFailure(vendor, mapped, "key-1", { outcomeUnknown: true });
    reclaimAbandonedLaunch({
      ...common,
      creation: Promise.reject(vendor),
      error,
      created: false,
      findByLaunchKey: find,
    });
    assert.equal(condemned.has("key-1"), false, "the caller, told its key, may look for the sandbox too");
    assert.deepEqual(await background.settle(), []);
    assert.deepEqual(destroyed, ["sb-orphan"]);
  });

  test("nothing in the listing: searched until the listing can be trusted, then done without a failure", async () => {
    const { destroyed, background, common } = setup({ listingTrustedAfterMs: 600 });
    const { searchedAt, find } = listing(Number.POSITIVE_INFINITY);
    const error = aborted();
    let ended = 0;
    const creation = Promise.reject(new ClientError(1)).catch((cut: unknown) => {
      ended = Date.now();
      throw cut;
    });
    reclaimAbandonedLaunch({ ...common, creation, error, created: false, findByLaunchKey: find });
    assert.deepEqual(await background.settle(), []);
    assert.deepEqual(destroyed, []);
    assert.ok(searchedAt.length >= 3, `searched ${searchedAt.length} times`);
    assert.ok((searchedAt.at(-1) as number) >= ended + 600, "the last search ran once the listing could be trusted");
    assert.equal((await launchReclaimOf(error))?.outcome, "none");
  });

  test("a budget that ends before the listing can be trusted is a failure saying a sandbox may have leaked", async () => {
    const { background, common } = setup({ cleanupMs: 400, listingTrustedAfterMs: 5_000 });
    const error = aborted();
    reclaimAbandonedLaunch({
      ...common,
      creation: Promise.reject(new ClientError(4)),
      error,
      created: false,
      findByLaunchKey: async () => [],
    });
    const failures = await background.settle();
    assert.equal(failures.length, 1);
    assert.deepEqual(failures[0]?.details, { launchKey: "key-1", possibleLeak: true });
    assert.match(failures[0]?.message ?? "", /key-1.*may have leaked/);
    const report = await launchReclaimOf(error);
    assert.equal(report?.outcome, "failed");
    assert.equal(report?.error, failures[0]);
  });

  test("a failed search is repeated; the last failure is the cause when the budget ends", async () => {
    const { destroyed, background, common } = setup();
    let searches = 0;
    reclaimAbandonedLaunch({
      ...common,
      creation: Promise.reject(new ClientError(4)),
      error: aborted(),
      created: false,
      findByLaunchKey: async () => {
        searches += 1;
        if (searches < 3) throw new Error("list failed");
        return ["sb-orphan"];
      },
    });
    assert.deepEqual(await background.settle(), []);
    assert.deepEqual([destroyed, searches], [["sb-orphan"], 3]);
  });

  test("a delete refused (429) after a setup failure is repeated after its Retry-After until the sandbox is gone", async () => {
    const { background, common } = setup();
    const attempts: string[] = [];
    const refused = () =>
      new SandportError({ code: "RATE_LIMITED", message: "429 Too Many Requests", retryAfterMs: 30 });
    const error = new SandportError({ code: "PROVIDER_UNAVAILABLE", message: "agent connection dropped" });
    reclaimAbandonedLaunch({
      ...common,
      creation: Promise.resolve({ id: "sb-setup-failed" }),
      error,
      created: true,
      findByLaunchKey: async () => [],
      destroy: async (id) => {
        attempts.push(id);
        if (attempts.length < 3) throw refused();
      },
    });
    assert.deepEqual(await background.settle(), []);
    assert.deepEqual(attempts, ["sb-setup-failed", "sb-setup-failed", "sb-setup-failed"]);
    assert.deepEqual(await launchReclaimOf(error), {
      launchKey: "key-1",
      outcome: "destroyed",
      destroyed: ["sb-setup-failed"],
    });
  });

  test("a delete that keeps failing ends with the budget: a possible leak naming the launch key, its cause the last refusal", async () => {
    const { background, common } = setup({ cleanupMs: 300 });
    let attempts = 0;
    const error = new SandportError({ code: "PROVIDER_UNAVAILABLE", message: "agent connection dropped" });
    reclaimAbandonedLaunch({
      ...common,
      creation: Promise.resolve({ id: "sb-setup-failed" }),
      error,
      created: true,
      findByLaunchKey: async () => [],
      destroy: async () => {
        attempts += 1;
        throw new SandportError({ code: "RATE_LIMITED", message: `429 number ${attempts}` });
      },
    });
    const failures = await background.settle();
    assert.ok(attempts >= 2, "the delete was repeated within the budget");
    assert.equal(failures[0]?.code, "RATE_LIMITED");
    assert.deepEqual(failures[0]?.details, { launchKey: "key-1", possibleLeak: true });
    assert.match(failures[0]?.message ?? "", new RegExp(`429 number ${attempts}$`));
    assert.equal((await launchReclaimOf(error))?.outcome, "failed");
  });

  test("a delete refused for good (credentials) is not repeated", async () => {
    const { background, common } = setup();
    let attempts = 0;
    reclaimAbandonedLaunch({
      ...common,
      creation: Promise.resolve({ id: "sb-theirs" }),
      error: aborted(),
      created: true,
      findByLaunchKey: async () => [],
      destroy: async () => {
        attempts += 1;
        throw new SandportError({ code: "AUTH", message: "401" });
      },
    });
    const failures = await background.settle();
    assert.deepEqual([attempts, failures[0]?.code], [1, "AUTH"]);
  });

  test("an orphan found by launch key whose delete fails once is deleted on the next attempt", async () => {
    const { background, common } = setup();
    const attempts: string[] = [];
    const { find } = listing(1);
    reclaimAbandonedLaunch({
      ...common,
      creation: Promise.reject(new ClientError(14)),
      error: deadline(),
      created: false,
      findByLaunchKey: find,
      destroy: async (id) => {
        attempts.push(id);
        if (attempts.length === 1) throw new Error("socket hang up");
      },
    });
    assert.deepEqual(await background.settle(), []);
    assert.deepEqual(attempts, ["sb-orphan", "sb-orphan"]);
  });

  test("a launch that failed with a known outcome before any sandbox existed starts no cleanup", () => {
    const { background, condemned, common } = setup();
    const error = launchFailure(
      new ClientError(3),
      new SandportError({ code: "INVALID_REQUEST", message: "bad" }),
      "key-1",
      { outcomeUnknown: false },
    );
    // The launch awaited its create, which is how it learnt of the failure: the rejection was handled.
    const creation = Promise.reject(new ClientError(3));
    creation.catch(() => {});
    reclaimAbandonedLaunch({ ...common, creation, error, created: false, findByLaunchKey: async () => [] });
    assert.deepEqual([background.size, condemned.size, launchReclaimOf(error)], [0, 0, undefined]);
  });

  test("the default trust horizon is a few seconds", () => {
    assert.ok(LISTING_TRUSTED_AFTER_MS >= 1_000 && LISTING_TRUSTED_AFTER_MS <= 30_000);
  });
});

describe("launchFailure", () => {
  test("an unknown outcome names the launch key being searched; a refusal keeps its code and may add a hint", () => {
    const vendor = new Error("socket hang up");
    const lost = launchFailure(
      vendor,
      new SandportError({
        code: "PROVIDER_UNAVAILABLE",
        provider: "acme",
        message: "acme launch failed: socket hang up",
        retryAfterMs: 500,
        details: { operation: "launch" },
      }),
      "key-1",
      { outcomeUnknown: true },
    );
    assert.match(lost.message, /^acme launch failed: socket hang up \(the sandbox may exist anyway: .*key-1/);
    assert.deepEqual(
      [lost.code, lost.provider, lost.retryable, lost.cause, lost.retryAfterMs],
      ["PROVIDER_UNAVAILABLE", "acme", true, vendor, 500],
    );
    assert.deepEqual(lost.details, { operation: "launch", launchKey: "key-1", outcomeUnknown: true });
    const refused = launchFailure(
      vendor,
      new SandportError({ code: "INVALID_REQUEST", message: "taken", details: { status: 409, sent: true } }),
      "key-2",
      { outcomeUnknown: false, hint: "a launch key is used once" },
    );
    assert.equal(refused.message, "taken (a launch key is used once)");
    assert.deepEqual(refused.details, { status: 409, sent: true, launchKey: "key-2", outcomeUnknown: false });
  });
});
