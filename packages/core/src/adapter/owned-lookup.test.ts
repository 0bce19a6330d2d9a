import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { createCallBudget } from "./adapter-context.js";
import type { ErrorMapper, ErrorSite } from "./error-mapper.js";
import { FakeContext, type FakeInfo } from "./fake-context.js";
import {
  findIdsByLaunchKey,
  findOwned,
  getOwned,
  listPages,
  ownedLookups,
  type SandboxListing,
} from "./owned-lookup.js";

/** A listing that filters loosely (owner only, as some providers do) and returns each sandbox twice. */
function looseListing(context: FakeContext): SandboxListing<FakeInfo> & { calls: number } {
  const listing = {
    calls: 0,
    idOf: (info: FakeInfo) => info.id,
    list: async () => {
      listing.calls++;
      const all = [...context.sandboxes.values()];
      return [...all, ...all];
    },
  };
  return listing;
}

const toHandle = (info: FakeInfo) => ({ id: info.id });

describe("owned lookups", () => {
  test("findOwned: ours only, every label matched, each once, condemned launches hidden", async () => {
    const context = new FakeContext();
    context.add("a", "me", { job: "1", "sandport.launch-key": "ka" });
    context.add("b", "me", { job: "2" });
    context.add("c", "someone-else", { job: "1" });
    context.add("d", "me", { job: "1", "sandport.launch-key": "kd" });
    context.condemned.add("kd");
    const listing = looseListing(context);
    const found = await findOwned(context, { job: "1" }, undefined, { ...listing, timeoutMs: 1_000, toHandle });
    assert.deepEqual(found, [{ id: "a" }]);
    assert.equal(context.known.isOwned("a"), true);
    assert.deepEqual(
      await findIdsByLaunchKey(context, listing, "kd", createCallBudget(1_000)),
      ["d"],
      "reclaim sees it",
    );
  });

  test("findOwned: another owner named in the query is [] without a request; bad labels are INVALID_REQUEST", async () => {
    const context = new FakeContext();
    const listing = looseListing(context);
    const options = { ...listing, timeoutMs: 1_000, toHandle };
    assert.deepEqual(await findOwned(context, { "sandport.owner": "other" }, undefined, options), []);
    const bad = await findOwned(context, { job: 3 } as never, undefined, options).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(bad, "INVALID_REQUEST"));
    assert.equal(listing.calls, 0);
  });

  test("getOwned: a handle when ours, undefined when absent, FOREIGN_SANDBOX when not ours, the id checked first", async () => {
    const context = new FakeContext();
    context.add("a");
    context.add("f", "someone-else");
    const validId = (id: unknown) => {
      if (typeof id !== "string" || id.includes("/")) throw new Error("bad id");
      return id;
    };
    const options = { timeoutMs: 1_000, validId, toHandle };
    assert.deepEqual(await getOwned(context, "a", undefined, options), { id: "a" });
    assert.equal(await getOwned(context, "z", undefined, options), undefined);
    const foreign = await getOwned(context, "f", undefined, options).catch((error: unknown) => error);
    assert.ok(SandportError.hasCode(foreign, "FOREIGN_SANDBOX"));
    const describes = context.describes;
    await assert.rejects(getOwned(context, "../x", undefined, options));
    assert.equal(context.describes, describes);
  });
});

describe("ownedLookups", () => {
  const lookups = ownedLookups<FakeContext, FakeInfo, { id: string; via: string }>({
    listing: looseListing,
    validId: (id, context) => {
      if (typeof id !== "string" || id.includes("/")) throw new Error(`bad id for ${context.provider}`);
      return id;
    },
    toHandle: (info, context) => ({ id: info.id, via: context.provider }),
  });

  test("getById, findByLabels and findByLaunchKey over one listing, each handle made with the context", async () => {
    const context = new FakeContext();
    context.add("a", "me", { job: "1", "sandport.launch-key": "ka" });
    context.add("c", "someone-else", { job: "1" });
    context.add("d", "me", { job: "1", "sandport.launch-key": "kd" });
    context.condemned.add("kd");
    assert.deepEqual(await lookups.getById(context, "a"), { id: "a", via: "fake" });
    assert.equal(await lookups.getById(context, "z"), undefined);
    await assert.rejects(lookups.getById(context, "c"), (error) => SandportError.hasCode(error, "FOREIGN_SANDBOX"));
    await assert.rejects(lookups.getById(context, "../x"), /bad id for fake/);
    assert.deepEqual(await lookups.findByLabels(context, { job: "1" }), [{ id: "a", via: "fake" }]);
    assert.deepEqual(await lookups.findByLaunchKey(context, "kd", createCallBudget(1_000)), ["d"]);
  });

  test("the deadline is the context's timeouts.lookupMs unless the call gives one", async () => {
    const context = new FakeContext();
    const slow = ownedLookups<FakeContext, FakeInfo, { id: string }>({
      listing: () => ({ idOf: (info) => info.id, list: () => new Promise(() => {}) }),
      validId: (id) => id as string,
      toHandle: (info) => ({ id: info.id }),
    });
    (context.options.timeouts as { lookupMs: number }).lookupMs = 20;
    await assert.rejects(
      slow.findByLabels(context, {}),
      (error) => SandportError.hasCode(error, "DEADLINE_EXCEEDED") && /within 20 ms/.test(String(error)),
    );
  });

  describe("listPages", () => {
    /** A mapper that records each site it mapped at and refuses for good (not retryable). */
    function recordingMapper(sites: ErrorSite[]): { readonly mapError: ErrorMapper } {
      const map = (error: unknown, site: ErrorSite) => {
        sites.push(site);
        return new SandportError({ code: "UNEXPECTED", provider: "fake", retryable: false, message: String(error) });
      };
      return { mapError: Object.assign(map, { outcomeUnknown: () => false, isNotFound: () => false }) };
    }

    test("every page in order, until the provider says there is none left", async () => {
      const pages = [["a", "b"], [], ["c"]];
      const listed = await listPages(recordingMapper([]), "find", createCallBudget(1_000), async () => pages.shift());
      assert.deepEqual(listed, ["a", "b", "c"]);
    });

    test("a page's failure goes through the context's mapError at the listing's operation", async () => {
      const sites: ErrorSite[] = [];
      const failing = listPages(recordingMapper(sites), "find by labels", createCallBudget(1_000), async () => {
        throw new Error("vendor said no");
      });
      await assert.rejects(
        failing,
        (error) => SandportError.hasCode(error, "UNEXPECTED") && /vendor said no/.test(String(error)),
      );
      assert.deepEqual(sites, [{ operation: "find by labels" }]);
    });

    test("the budget's signal stops the walk before the next page", async () => {
      const controller = new AbortController();
      let asked = 0;
      const budget = { remainingMs: () => 1_000, signal: controller.signal };
      const walk = listPages(recordingMapper([]), "find", budget, async () => {
        asked++;
        controller.abort();
        return asked < 3 ? ["a"] : undefined;
      });
      await assert.rejects(walk, (error) => SandportError.hasCode(error, "ABORTED"));
      assert.equal(asked, 1);
    });
  });
});
