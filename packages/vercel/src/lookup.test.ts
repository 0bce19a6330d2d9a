// getById and findByLabels through the real @vercel/sandbox SDK (3.5 and 3.0) against the
// Vercel emulator: the name prefix and the owner tag as the ownership boundary, the list
// API (never the get that resumes), server-side filters re-checked in process, every page.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LAUNCH_KEY_LABEL, type Labels, OWNER_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { Sandbox } from "@vercel/sandbox";
import { emulated, emulatorOptions, SDK_VERSIONS, type SdkVersion } from "../test/emulated.js";
import { VercelRuntime } from "./vercel-runtime.js";

const LIST = "GET /v2/sandboxes";
const ids = (handles: readonly { id: string }[]) => handles.map((handle) => handle.id).sort();

for (const version of Object.keys(SDK_VERSIONS) as SdkVersion[]) {
  describe(`lookup with @vercel/sandbox ${version}`, async () => {
    const { emulator, runtime, runtimeWith } = await emulated({ owner: "lookup" }, { version });
    /** A sandbox made with the SDK directly, as someone else would. */
    const intruder = async (name: string, tags: Record<string, string>) =>
      (await Sandbox.create({ ...emulator.sdkOptions, name, tags })).name;

    test("getById: a name outside the prefix is FOREIGN_SANDBOX without a request", async () => {
      const foreign = await emulator.seedForeignSandbox({ [OWNER_LABEL]: "lookup" });
      emulator.resetRequests();
      const refused = await expectCode(runtime.getById(foreign), "FOREIGN_SANDBOX");
      assert.match(refused.message, /does not start with sandport-lookup-/);
      await expectCode(runtime.getById("sandport-other-owner-key"), "FOREIGN_SANDBOX");
      for (const id of ["bad id!", "..", "a/b", "", "-dash"])
        await expectCode(runtime.getById(id), "INVALID_REQUEST", id);
      assert.equal(emulator.countRequests(), 0);
    });

    test("getById goes through the list API, never the get that resumes; absent is undefined", async () => {
      const launched = await runtime.launch({ labels: { job: "42" } });
      emulator.resetRequests();
      const found = await runtimeWith({}).getById(launched.id);
      assert.deepEqual(found, launched);
      assert.deepEqual(JSON.parse(JSON.stringify(found)), found, "a handle is plain data");
      assert.deepEqual(
        emulator.requests.map((request) => request.route),
        [LIST],
      );
      const query = new URL(emulator.requests[0]?.path ?? "", "http://x").searchParams;
      assert.equal(query.get("namePrefix"), launched.id, "filtered by the exact name");
      assert.deepEqual([query.get("sortBy"), query.get("limit")], ["name", "50"], "as the API requires with a prefix");
      assert.equal(await runtime.getById("sandport-lookup-never-launched"), undefined);
      await runtime.stop(launched);
      emulator.resetRequests();
      assert.ok(await runtimeWith({}).getById(launched.id), "a stopped sandbox is found");
      assert.equal(emulator.liveSandboxes().find((entry) => entry.id === launched.id)?.state, "stopped", "not resumed");
      await runtime.destroy(launched);
    });

    test("getById: a name inside the prefix without our owner tag is FOREIGN_SANDBOX, and so is a longer prefix's", async () => {
      const untagged = await intruder("sandport-lookup-intruder", { job: "42" });
      const otherOwner = await intruder("sandport-lookup-x-mine", { [OWNER_LABEL]: "lookup-x" });
      await expectCode(runtime.getById(untagged), "FOREIGN_SANDBOX");
      await expectCode(runtime.getById(otherOwner), "FOREIGN_SANDBOX");
      const theirs = new VercelRuntime({ ...emulatorOptions(emulator, version), owner: "lookup-x" });
      assert.equal((await theirs.getById(otherOwner))?.id, otherOwner, "its own runtime finds it");
      assert.deepEqual(await runtime.findByLabels({}), [], "never listed as ours");
      assert.deepEqual(await runtime.findByLabels({ job: "42" }), []);
      for (const name of [untagged, otherOwner]) {
        await (await Sandbox.get({ ...emulator.sdkOptions, name })).delete();
      }
    });

    test("findByLabels filters by the name prefix and one tag on the server, re-checks every row, walks every page", async () => {
      const pool = [];
      for (let index = 0; index < 4; index++)
        pool.push(await runtime.launch({ labels: { pool: "a", n: String(index) } }));
      const other = await runtime.launch({ labels: { pool: "b" } });
      await intruder("sandport-lookup-lookalike", { pool: "a" });
      emulator.resetRequests();
      assert.deepEqual(ids(await runtime.findByLabels({ pool: "a" })), ids(pool));
      assert.equal(emulator.countRequests(LIST), 2, "4 matches at the emulator's 3 per page is 2 pages");
      const query = new URL(emulator.requests[0]?.path ?? "", "http://x").searchParams;
      assert.equal(query.get("namePrefix"), "sandport-lookup-");
      assert.deepEqual(query.getAll("tags"), ["pool:a"]);
      assert.deepEqual(ids(await runtime.findByLabels({ pool: "a", n: "2" })), [pool[2]?.id]);
      assert.deepEqual(ids(await runtime.findByLabels({})), ids([...pool, other]), "{} is every sandbox of ours");
      emulator.resetRequests();
      assert.deepEqual(ids(await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: other.id.slice(16) })), [other.id]);
      const byKey = new URL(emulator.requests[0]?.path ?? "", "http://x").searchParams;
      assert.equal(byKey.get("namePrefix"), other.id, "a launch key narrows the name prefix");
      assert.deepEqual(byKey.getAll("tags"), [`${OWNER_LABEL}:lookup`], "without a caller label, the owner tag");
      emulator.resetRequests();
      assert.deepEqual(await runtime.findByLabels({ [OWNER_LABEL]: "someone-else" }), []);
      assert.deepEqual(await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: "no name has this key" }), []);
      await expectCode(runtime.findByLabels(undefined as unknown as Labels), "INVALID_REQUEST");
      await expectCode(runtime.findByLabels({ "bad key!": "x" }), "INVALID_REQUEST");
      assert.equal(emulator.countRequests(), 0, "nothing can match: answered without a request");
      for (const handle of [...pool, other]) await runtime.destroy(handle);
      await (await Sandbox.get({ ...emulator.sdkOptions, name: "sandport-lookup-lookalike" })).delete();
    });

    test("a server that ignores the filters never hands back someone else's sandbox", async () => {
      const mine = await runtime.launch({ labels: { pool: "c" } });
      const elsewhere = await runtime.launch({ labels: { pool: "d" } });
      await intruder("sandport-lookup-twin", { pool: "c" });
      await emulator.seedForeignSandbox({ pool: "c", [OWNER_LABEL]: "lookup" });
      // A fetch that drops the name and tag filters on their way, as a server ignoring them would.
      const ignoring: typeof fetch = (input, init) => {
        const url = new URL(String(input));
        url.searchParams.delete("namePrefix");
        url.searchParams.delete("tags");
        return emulator.fetch(url.toString(), init);
      };
      const careless = runtimeWith({ fetch: ignoring, listPageSize: 50 });
      emulator.resetRequests();
      assert.deepEqual(ids(await careless.findByLabels({ pool: "c" })), [mine.id]);
      assert.ok(
        emulator.requests.every((request) => !request.path.includes("namePrefix")),
        "the filters were dropped",
      );
      assert.equal(await careless.getById(elsewhere.id).then((found) => found?.id), elsewhere.id);
      await runtime.destroy(mine);
      await runtime.destroy(elsewhere);
      await (await Sandbox.get({ ...emulator.sdkOptions, name: "sandport-lookup-twin" })).delete();
    });

    test("listPageSize is the limit of every page; a failed page is retried, a persistent failure typed", async () => {
      const launched = [await runtime.launch(), await runtime.launch()];
      const small = runtimeWith({ listPageSize: 1 });
      emulator.resetRequests();
      assert.equal((await small.findByLabels({})).length, 2);
      assert.equal(emulator.countRequests(LIST), 2);
      assert.ok(emulator.requests.every((request) => request.path.includes("limit=1")));
      emulator.injectFault({ route: LIST, fault: { kind: "status", status: 503 }, times: 3 });
      assert.equal((await runtime.findByLabels({})).length, 2, "the SDK's retries, then the kit's page retry");
      emulator.injectFault({ route: LIST, fault: { kind: "status", status: 403 } });
      await expectCode(runtime.findByLabels({}), "AUTH");
      await expectCode(runtimeWith({ token: "vcp_wrong" }).getById("sandport-lookup-any"), "AUTH");
      for (const handle of launched) await runtime.destroy(handle);
    });
  });
}
