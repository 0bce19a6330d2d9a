// The launch recipe: the frame every remote adapter's launch runs in, around its vendor primitives.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { invalidRequest, unsupported } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import { EXEC_MARKER_ENV } from "../port/exec-markers.js";
import { LAUNCH_KEY_LABEL } from "../port/reserved-labels.js";
import { AdapterContext, type CallBudget } from "./adapter-context.js";
import { createErrorMapper } from "./error-mapper.js";
import { type LaunchOptions, type LaunchRecipe, launchWithReclaim } from "./launch-recipe.js";
import { launchReclaimOf } from "./reclaim-launch.js";
import type { SdkLoader } from "./sdk-loader.js";

const noSdk: SdkLoader<object> = Object.assign(async () => ({}), { packageNames: [], range: "*" });

/** A context with the options the recipe reads; nothing is ever looked up through it. */
class LaunchContext extends AdapterContext<LaunchOptions, object, object> {
  constructor() {
    super({
      provider: "fake",
      options: {
        owner: "me",
        timeouts: { launchMs: 5_000, destroyMs: 1_000, lookupMs: 1_000 },
        orphanCleanupMs: 10_000,
      },
      sdk: noSdk,
      mapError: createErrorMapper({ provider: "fake" }),
      sandboxIdOf: () => {
        throw invalidRequest("no handles here", {}, "fake");
      },
    });
  }

  async describe(): Promise<object | undefined> {
    return undefined;
  }

  labelsOf(): undefined {
    return undefined;
  }
}

type Made = { readonly id: string };
type Handle = { readonly id: string; readonly labels: Readonly<Record<string, string>> };

/** A vendor that records each step; `create` answers with `creation` (a made sandbox `sb-1` unless told). */
function fakeVendor(context: LaunchContext, creation: () => Promise<Made> = async () => ({ id: "sb-1" })) {
  const steps: string[] = [];
  const keys: string[] = [];
  const destroyed: string[] = [];
  const budgets: number[] = [];
  const searched: string[] = [];
  let found: readonly string[] = [];
  let sent: () => void = () => {};
  const createSent = new Promise<void>((resolve) => {
    sent = resolve;
  });
  const recipe: LaunchRecipe<{ readonly key: string }, string, Made, Handle> = {
    networkPolicy: "all-or-none",
    plan: (_spec, launchKey) => {
      steps.push("plan");
      keys.push(launchKey);
      return { key: launchKey };
    },
    load: async () => {
      steps.push("load");
      return "sdk";
    },
    create: (sdk) => {
      steps.push(`create with ${sdk}`);
      sent();
      return creation();
    },
    idOf: (made) => made.id,
    setup: async (made, { labels }) => {
      steps.push(`setup (${context.known.isOwned(made.id) ? "owned" : "unknown"})`);
      return { id: made.id, labels };
    },
    destroy: async (sandboxId: string, budget: CallBudget) => {
      budgets.push(budget.remainingMs());
      destroyed.push(sandboxId);
    },
    findByLaunchKey: async (launchKey: string) => {
      searched.push(launchKey);
      return found;
    },
  };
  return {
    steps,
    keys,
    destroyed,
    budgets,
    searched,
    createSent,
    recipe,
    find: (ids: readonly string[]) => {
      found = ids;
    },
  };
}

/** A vendor failure with an HTTP status, as an SDK throws it. */
const httpError = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });

describe("launchWithReclaim", () => {
  test("plans, loads, creates, then sets up the sandbox, marked ours before its setup and pristine after", async () => {
    const context = new LaunchContext();
    const vendor = fakeVendor(context);
    const handle = await launchWithReclaim(
      context,
      { launchKey: "k1", labels: { team: "a" } },
      undefined,
      vendor.recipe,
    );
    assert.deepEqual(vendor.steps, ["plan", "load", "create with sdk", "setup (owned)"]);
    assert.deepEqual(vendor.keys, ["k1"]);
    assert.deepEqual(handle, { id: "sb-1", labels: { team: "a" } });
    assert.equal(Object.isFrozen(handle.labels), true);
    assert.equal(context.known.isPristine("sb-1"), true);
    assert.deepEqual(await context.background.settle(), []);
  });

  test("a launch without a launch key gets a fresh one", async () => {
    const context = new LaunchContext();
    const vendor = fakeVendor(context);
    await launchWithReclaim(context, undefined, undefined, vendor.recipe);
    await launchWithReclaim(context, {}, undefined, vendor.recipe);
    const [first, second] = vendor.keys;
    assert.match(first ?? "", /^[0-9a-f-]{36}$/);
    assert.notEqual(first, second);
  });

  test("a bad spec, a reserved env name and the plan's refusals are refused before anything loads", async () => {
    const context = new LaunchContext();
    const vendor = fakeVendor(context);
    await assert.rejects(launchWithReclaim(context, { network: "yes" } as never, undefined, vendor.recipe), {
      code: "INVALID_REQUEST",
    });
    await assert.rejects(
      launchWithReclaim(context, { env: { [EXEC_MARKER_ENV]: "x" } }, undefined, vendor.recipe),
      (error: SandportError) => error.code === "INVALID_REQUEST" && error.message.includes(EXEC_MARKER_ENV),
    );
    assert.deepEqual(vendor.steps, []);
    const refusing = {
      ...vendor.recipe,
      plan: () => {
        throw unsupported("fake", "resource limits", "the fake has none");
      },
    };
    await assert.rejects(launchWithReclaim(context, { resources: { cpus: 2 } }, undefined, refusing), {
      code: "UNSUPPORTED",
    });
    assert.deepEqual(vendor.steps, []);
  });

  test("an allow list the recipe cannot enforce is UNSUPPORTED before the plan; one it can is planned", async () => {
    const context = new LaunchContext();
    const vendor = fakeVendor(context);
    await assert.rejects(
      launchWithReclaim(context, { network: { allow: ["pypi.org"] } }, undefined, vendor.recipe),
      (error: SandportError) => error.code === "UNSUPPORTED" && /allow list/.test(error.message),
    );
    await assert.rejects(
      launchWithReclaim(context, { network: { allow: ["pypi.org"] } }, undefined, {
        ...vendor.recipe,
        networkPolicy: "cidr",
      }),
      { code: "UNSUPPORTED" },
    );
    assert.deepEqual(vendor.steps, []);
    const enforcing = { ...vendor.recipe, networkPolicy: "domains" as const };
    await launchWithReclaim(context, { network: { allow: ["pypi.org"] } }, undefined, enforcing);
    assert.equal(vendor.steps[0], "plan");
  });

  test("a launch from a snapshot is UNSUPPORTED before the plan unless the recipe restores snapshots", async () => {
    const context = new LaunchContext();
    const vendor = fakeVendor(context);
    await assert.rejects(
      launchWithReclaim(context, { from: "snap-1" }, undefined, vendor.recipe),
      (error: SandportError) => error.code === "UNSUPPORTED" && /snapshot/.test(error.message),
    );
    assert.deepEqual(vendor.steps, [], "nothing planned, nothing sent: never launched fresh instead");
    await launchWithReclaim(context, { from: "snap-1" }, undefined, { ...vendor.recipe, restoresSnapshots: true });
    assert.equal(vendor.steps[0], "plan");
  });

  test("a caller that gave up while the SDK loaded sends no create", async () => {
    const context = new LaunchContext();
    const vendor = fakeVendor(context);
    let release: () => void = () => {};
    const loading = new Promise<void>((resolve) => {
      release = resolve;
    });
    let loaded = false;
    const slowLoad = {
      ...vendor.recipe,
      load: async () => {
        await loading;
        loaded = true;
        return "sdk";
      },
    };
    const caller = new AbortController();
    const launching = launchWithReclaim(context, { launchKey: "k1" }, { signal: caller.signal }, slowLoad);
    caller.abort();
    await assert.rejects(launching, { code: "ABORTED" });
    release();
    await loading;
    // Every continuation of the loaded SDK has run by the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(loaded, true);
    assert.deepEqual(vendor.steps, ["plan"]);
    assert.deepEqual(await context.background.settle(), []);
  });

  test("a create the caller gave up on finishes, and what it made is destroyed in the background", async () => {
    const context = new LaunchContext();
    let land: (made: Made) => void = () => {};
    const vendor = fakeVendor(
      context,
      () =>
        new Promise<Made>((resolve) => {
          land = resolve;
        }),
    );
    const caller = new AbortController();
    const launching = launchWithReclaim(context, { launchKey: "k1" }, { signal: caller.signal }, vendor.recipe);
    await vendor.createSent;
    caller.abort();
    const error = await launching.then(
      () => assert.fail("the launch resolved"),
      (failure: SandportError) => failure,
    );
    assert.equal(error.code, "ABORTED");
    assert.equal(context.isCondemned({ [LAUNCH_KEY_LABEL]: "k1" }), true);
    land({ id: "sb-late" });
    assert.deepEqual(await context.background.settle(), []);
    assert.deepEqual(vendor.destroyed, ["sb-late"]);
    assert.ok((vendor.budgets[0] ?? 0) > 0 && (vendor.budgets[0] ?? 0) <= 1_000, "each delete within destroyMs");
    assert.equal(context.isCondemned({ [LAUNCH_KEY_LABEL]: "k1" }), false);
    assert.deepEqual(await launchReclaimOf(error), { launchKey: "k1", outcome: "destroyed", destroyed: ["sb-late"] });
  });

  test("a create with an unknown outcome names its launch key; the sandbox is searched for and destroyed", async () => {
    const context = new LaunchContext();
    const vendor = fakeVendor(context, async () => {
      throw httpError(502);
    });
    vendor.find(["sb-lost"]);
    const error = await launchWithReclaim(context, { launchKey: "k1" }, undefined, vendor.recipe).then(
      () => assert.fail("the launch resolved"),
      (failure: SandportError) => failure,
    );
    assert.equal(error.code, "PROVIDER_UNAVAILABLE");
    assert.equal(error.details.launchKey, "k1");
    assert.equal(error.details.outcomeUnknown, true);
    assert.match(error.message, /search launch key k1/);
    assert.deepEqual(await context.background.settle(), []);
    assert.deepEqual(vendor.searched, ["k1"]);
    assert.deepEqual(vendor.destroyed, ["sb-lost"]);
  });

  test("a create refused with a known outcome says the hint and leaves nothing to clean up", async () => {
    const context = new LaunchContext();
    const vendor = fakeVendor(context, async () => {
      throw httpError(400);
    });
    const hinted = { ...vendor.recipe, hint: (_error: unknown, launchKey: string) => `key ${launchKey} is used once` };
    const error = await launchWithReclaim(context, { launchKey: "k1" }, undefined, hinted).then(
      () => assert.fail("the launch resolved"),
      (failure: SandportError) => failure,
    );
    assert.equal(error.code, "INVALID_REQUEST");
    assert.equal(error.details.outcomeUnknown, false);
    assert.equal(error.details.operation, "launch");
    assert.match(error.message, /\(key k1 is used once\)$/);
    assert.equal(launchReclaimOf(error), undefined);
    assert.deepEqual(await context.background.settle(), []);
    assert.deepEqual([vendor.searched, vendor.destroyed], [[], []]);
  });

  test("a setup that fails after the create destroys the sandbox in the background", async () => {
    const context = new LaunchContext();
    const vendor = fakeVendor(context);
    const failingSetup = {
      ...vendor.recipe,
      setup: async (): Promise<Handle> => {
        throw new Error("mkdir failed");
      },
    };
    await assert.rejects(launchWithReclaim(context, { launchKey: "k1" }, undefined, failingSetup), /mkdir failed/);
    assert.equal(context.known.isPristine("sb-1"), false);
    assert.deepEqual(await context.background.settle(), []);
    assert.deepEqual(vendor.destroyed, ["sb-1"]);
  });

  test("the operation names the call's site, and createFailure words a failed create the adapter's way", async () => {
    const context = new LaunchContext();
    const vendor = fakeVendor(context, async () => {
      throw httpError(400);
    });
    const detached = { ...vendor.recipe, operation: "launchDetached" };
    await assert.rejects(
      launchWithReclaim(context, { launchKey: "k1" }, undefined, detached),
      (error: SandportError) => {
        assert.equal(error.details.operation, "launchDetached");
        return true;
      },
    );
    const worded = {
      ...detached,
      createFailure: (_error: unknown, launchKey: string) =>
        new SandportError({ code: "PROVIDER_UNAVAILABLE", message: `taken: ${launchKey}`, details: { launchKey } }),
    };
    await assert.rejects(launchWithReclaim(context, { launchKey: "k2" }, undefined, worded), {
      code: "PROVIDER_UNAVAILABLE",
      message: "taken: k2",
    });
    assert.deepEqual(await context.background.settle(), []);
  });
});
