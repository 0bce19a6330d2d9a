// The emulated API server's rules with raw HTTP (README.md's table): bearer auth and Status errors,
// warm-pool adoption and cold starts, Ready moving False → True on a watch, label selectors,
// resourceVersion conflicts, 410 on a stale watch, suspend/resume, foreground deletion and expiry.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  api,
  CORE_SANDBOXES,
  claimReady,
  EXT,
  type Json,
  PODS_PATH,
  readyOf,
  routing,
  watch,
} from "./client.fixture.js";
import { type KubernetesEmulator, startKubernetesEmulator } from "./emulator.js";
import { kubernetesEmulatorSkipReason } from "./pod-workspace.js";

/** The emulator needs pods with their own `/workspace` (see `kubernetesEmulatorSkipReason`). */
const skip = await kubernetesEmulatorSkipReason();

describe("Kubernetes emulator: API server", { skip }, () => {
  let emulator: KubernetesEmulator;
  before(async () => {
    emulator = await startKubernetesEmulator({
      templates: [
        { name: "sandboxd", sandboxd: true },
        { name: "locked", sandboxd: true, envVarsInjectionPolicy: "Disallowed" },
      ],
      warmPools: [
        { name: "pool", template: "sandboxd", replicas: 1 },
        { name: "locked-pool", template: "locked", replicas: 0 },
      ],
    });
  });
  after(() => emulator.stop());

  test("no token or a wrong one is 401 with a Status; seeded templates and pools are listed", async () => {
    for (const token of [null, "wrong"]) {
      const refused = await api(emulator, `${EXT}/sandboxtemplates`, { token });
      assert.equal(refused.status, 401);
      assert.equal(refused.body.kind, "Status");
      assert.equal(refused.body.reason, "Unauthorized");
      assert.equal(refused.body.code, 401);
    }
    const templates = await api(emulator, `${EXT}/sandboxtemplates`);
    assert.equal(templates.status, 200);
    assert.equal(templates.body.kind, "SandboxTemplateList");
    assert.deepEqual(
      templates.body.items.map((item: Json) => item.metadata.name),
      ["locked", "sandboxd"],
    );
    assert.equal(templates.body.items[1].spec.podTemplate.spec.containers[0].name, "sandboxd");
    const pool = await api(emulator, `${EXT}/sandboxwarmpools/pool`);
    assert.equal(pool.body.spec.sandboxTemplateRef.name, "sandboxd");
    assert.equal(pool.body.status.readyReplicas, 1);
    const missing = await api(emulator, `${EXT}/sandboxwarmpools/nope`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.reason, "NotFound");
  });

  test("a claim adopts the pool's ready warm Sandbox, the pool is replenished; a second create of the name is 409", async () => {
    const warmBefore = await api(
      emulator,
      `${CORE_SANDBOXES}?labelSelector=agents.x-k8s.io%2Fwarm-pool-sandbox%3Dpool`,
    );
    assert.equal(warmBefore.body.items.length, 1);
    const warmName = warmBefore.body.items[0].metadata.name as string;
    const claim = await claimReady(emulator, {
      metadata: { name: "adopter", labels: { owner: "me", team: "a" } },
      spec: { warmPoolRef: { name: "pool" }, additionalPodMetadata: { labels: { extra: "yes" } } },
    });
    assert.equal(claim.status.sandbox.name, warmName);
    assert.equal(claim.metadata.annotations["agents.x-k8s.io/sandbox-name"], warmName);
    const sandbox = (await api(emulator, `${CORE_SANDBOXES}/${warmName}`)).body;
    assert.equal(sandbox.metadata.labels["agents.x-k8s.io/launch-type"], "warm");
    assert.equal(sandbox.metadata.labels["agents.x-k8s.io/warm-pool-sandbox"], undefined);
    assert.equal(sandbox.metadata.ownerReferences[0].uid, claim.metadata.uid);
    const pod = await api(emulator, `${PODS_PATH}/${warmName}`);
    assert.equal(pod.body.status.phase, "Running");
    assert.equal(pod.body.metadata.labels.extra, "yes");
    await emulator.settle();
    const warmAfter = await api(emulator, `${CORE_SANDBOXES}?labelSelector=agents.x-k8s.io%2Fwarm-pool-sandbox%3Dpool`);
    assert.equal(warmAfter.body.items.length, 1);
    assert.notEqual(warmAfter.body.items[0].metadata.name, warmName);

    const again = await api(emulator, `${EXT}/sandboxclaims`, {
      method: "POST",
      body: { metadata: { name: "adopter" }, spec: { warmPoolRef: { name: "pool" } } },
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.reason, "AlreadyExists");
    const invalid = await api(emulator, `${EXT}/sandboxclaims`, {
      method: "POST",
      body: { metadata: { name: "x" }, spec: {} },
    });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.body.reason, "Invalid");
  });

  test("label selectors pick claims: equality, inequality, set and existence", async () => {
    await claimReady(emulator, {
      metadata: { name: "sel-b", labels: { owner: "me", team: "b" } },
      spec: { warmPoolRef: { name: "pool" } },
    });
    await claimReady(emulator, {
      metadata: { name: "sel-c", labels: { owner: "you" } },
      spec: { warmPoolRef: { name: "pool" } },
    });
    const names = async (selector: string) =>
      (await api(emulator, `${EXT}/sandboxclaims?labelSelector=${encodeURIComponent(selector)}`)).body.items.map(
        (item: Json) => item.metadata.name,
      );
    assert.deepEqual(await names("owner=me"), ["adopter", "sel-b"]);
    assert.deepEqual(await names("owner=me,team!=a"), ["sel-b"]);
    assert.deepEqual(await names("team in (a,b)"), ["adopter", "sel-b"]);
    assert.deepEqual(await names("!team"), ["sel-c"]);
    assert.deepEqual(await names("owner notin (me)"), ["sel-c"]);
    assert.equal((await api(emulator, `${EXT}/sandboxclaims?labelSelector=${encodeURIComponent("a=(")}`)).status, 400);
  });

  test("env forces a cold start named like the claim; the watch shows Ready False before True; a template that disallows env refuses it", async () => {
    const events = await watch(emulator, `${CORE_SANDBOXES}?fieldSelector=metadata.name%3Dcold-one`);
    const claim = await claimReady(emulator, {
      metadata: { name: "cold-one" },
      spec: { warmPoolRef: { name: "pool" }, env: [{ name: "GREETING", value: "hello-cold" }] },
    });
    assert.equal(claim.status.sandbox.name, "cold-one");
    const seen = await events.until((event) => readyOf(event.object) === "True");
    events.close();
    assert.equal(seen[0]!.type, "ADDED");
    assert.equal(readyOf(seen[0]!.object), "False");
    assert.equal(seen[0]!.object.metadata.labels["agents.x-k8s.io/launch-type"], "cold");
    const run = await fetch(`${emulator.routerUrl}/v1/files/probe.txt`, {
      method: "PUT",
      headers: routing("cold-one", 8080),
      body: "x",
    });
    assert.equal(run.status, 204);
    // A template whose policy is Disallowed refuses a claim with env.
    const locked = await api(emulator, `${EXT}/sandboxclaims`, {
      method: "POST",
      body: {
        metadata: { name: "locked-env" },
        spec: { warmPoolRef: { name: "locked-pool" }, env: [{ name: "A", value: "1" }] },
      },
    });
    assert.equal(locked.status, 201);
    const stored = (await api(emulator, `${EXT}/sandboxclaims/locked-env`)).body;
    const ready = stored.status.conditions.find((condition: Json) => condition.type === "Ready");
    assert.equal(ready.status, "False");
    assert.equal(ready.reason, "EnvVarsInjectionRejected");
  });

  test("a watch resumes from a resourceVersion; after compaction that version is 410 Expired", async () => {
    const list = await api(emulator, `${EXT}/sandboxclaims`);
    const version = list.body.metadata.resourceVersion as string;
    await api(emulator, `${EXT}/sandboxclaims`, {
      method: "POST",
      body: { metadata: { name: "after-list" }, spec: { warmPoolRef: { name: "missing-pool" } } },
    });
    const resumed = await watch(emulator, `${EXT}/sandboxclaims?resourceVersion=${version}`);
    const first = await resumed.next();
    resumed.close();
    assert.equal(first?.type, "ADDED");
    assert.equal(first?.object.metadata.name, "after-list");
    assert.ok(Number(first?.object.metadata.resourceVersion) > Number(version));

    emulator.compactHistory();
    const stale = await watch(emulator, `${EXT}/sandboxclaims?resourceVersion=${version}`);
    const error = await stale.next();
    assert.equal(error?.type, "ERROR");
    assert.equal(error?.object.code, 410);
    assert.equal(error?.object.reason, "Expired");
    assert.equal(await stale.next(), undefined, "the stream ends after the ERROR event");
    const exact = await api(emulator, `${EXT}/sandboxclaims?resourceVersion=${version}&resourceVersionMatch=Exact`);
    assert.equal(exact.status, 410);
  });

  test("operatingMode Suspended removes the pod and keeps /workspace; Running brings a new pod; a stale resourceVersion is 409", async () => {
    const claim = await claimReady(emulator, {
      metadata: { name: "sleeper" },
      spec: { warmPoolRef: { name: "pool" } },
    });
    const name = claim.status.sandbox.name as string;
    const put = await fetch(`${emulator.routerUrl}/v1/files/keep/me.txt`, {
      method: "PUT",
      headers: routing(name, 8080),
      body: "kept",
    });
    assert.equal(put.status, 204);
    const sandbox = (await api(emulator, `${CORE_SANDBOXES}/${name}`)).body;
    const events = await watch(
      emulator,
      `${CORE_SANDBOXES}?fieldSelector=metadata.name%3D${name}&resourceVersion=${sandbox.metadata.resourceVersion}`,
    );
    const patch = (body: unknown, contentType = "application/merge-patch+json") =>
      api(emulator, `${CORE_SANDBOXES}/${name}`, { method: "PATCH", body, contentType });
    const suspended = await patch({ spec: { operatingMode: "Suspended" } });
    assert.equal(suspended.status, 200);
    await events.until((event) =>
      event.object.status?.conditions?.some((c: Json) => c.type === "Suspended" && c.status === "True"),
    );
    assert.equal((await api(emulator, `${PODS_PATH}/${name}`)).status, 404);
    const unreachable = await fetch(`${emulator.routerUrl}/v1/files/keep/me.txt`, { headers: routing(name, 8080) });
    assert.equal(unreachable.status, 502);
    const current = (await api(emulator, `${CORE_SANDBOXES}/${name}`)).body;
    const ready = current.status.conditions.find((c: Json) => c.type === "Ready");
    assert.equal(ready.reason, "SandboxSuspended");

    const stale = await patch({
      metadata: { resourceVersion: sandbox.metadata.resourceVersion },
      spec: { operatingMode: "Running" },
    });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, "Conflict");
    assert.equal((await patch({ spec: { operatingMode: "Paused" } })).status, 422);
    assert.equal((await patch([{ op: "replace" }], "application/json-patch+json")).status, 415);

    const resumed = await patch({
      metadata: { resourceVersion: current.metadata.resourceVersion },
      spec: { operatingMode: "Running" },
    });
    assert.equal(resumed.status, 200);
    await events.until((event) => readyOf(event.object) === "True");
    events.close();
    assert.equal((await api(emulator, `${PODS_PATH}/${name}`)).status, 200);
    const kept = await fetch(`${emulator.routerUrl}/v1/files/keep/me.txt`, { headers: routing(name, 8080) });
    assert.equal(await kept.text(), "kept");
  });

  test("foreground deletion: the claim stays with a deletionTimestamp until its Sandbox and pod are gone", async () => {
    const claim = await claimReady(emulator, { metadata: { name: "doomed" }, spec: { warmPoolRef: { name: "pool" } } });
    const sandboxName = claim.status.sandbox.name as string;
    const claims = await watch(
      emulator,
      `${EXT}/sandboxclaims?fieldSelector=metadata.name%3Ddoomed&resourceVersion=${claim.metadata.resourceVersion}`,
    );
    const order: string[] = [];
    const pods = await watch(emulator, `${PODS_PATH}?fieldSelector=metadata.name%3D${sandboxName}`);
    const podGone = pods.until((event) => event.type === "DELETED").then(() => order.push("pod deleted"));
    const deleted = await api(emulator, `${EXT}/sandboxclaims/doomed`, {
      method: "DELETE",
      body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Foreground" },
    });
    assert.equal(deleted.status, 202);
    assert.ok(deleted.body.metadata.deletionTimestamp);
    assert.deepEqual(deleted.body.metadata.finalizers, ["foregroundDeletion"]);
    const seen = await claims.until((event) => event.type === "DELETED");
    order.push("claim deleted");
    claims.close();
    await podGone;
    pods.close();
    assert.equal(seen[0]!.type, "MODIFIED");
    assert.ok(seen[0]!.object.metadata.deletionTimestamp);
    assert.deepEqual(order, ["pod deleted", "claim deleted"]);
    assert.equal((await api(emulator, `${CORE_SANDBOXES}/${sandboxName}`)).status, 404);
    assert.equal((await api(emulator, `${EXT}/sandboxclaims/doomed`)).status, 404);
  });

  test("background deletion removes the claim at once and its Sandbox after; orphan leaves the Sandbox", async () => {
    const background = await claimReady(emulator, {
      metadata: { name: "bg" },
      spec: { warmPoolRef: { name: "pool" } },
    });
    const orphan = await claimReady(emulator, {
      metadata: { name: "orphan" },
      spec: { warmPoolRef: { name: "pool" } },
    });
    const gone = await api(emulator, `${EXT}/sandboxclaims/bg`, { method: "DELETE" });
    assert.equal(gone.status, 200);
    assert.equal((await api(emulator, `${EXT}/sandboxclaims/bg`)).status, 404);
    const left = await api(emulator, `${EXT}/sandboxclaims/orphan?propagationPolicy=Orphan`, { method: "DELETE" });
    assert.equal(left.status, 200);
    await emulator.settle();
    assert.equal((await api(emulator, `${CORE_SANDBOXES}/${background.status.sandbox.name}`)).status, 404);
    assert.equal((await api(emulator, `${PODS_PATH}/${background.status.sandbox.name}`)).status, 404);
    assert.equal((await api(emulator, `${CORE_SANDBOXES}/${orphan.status.sandbox.name}`)).status, 200);
    assert.equal((await api(emulator, `${EXT}/sandboxclaims/nope`, { method: "DELETE" })).status, 404);
  });

  test("lifecycle.shutdownTime expires a claim: Delete removes it with its Sandbox; Retain keeps it as ClaimExpired", async () => {
    const soon = new Date(Date.now() + 1_500).toISOString();
    const kept = await claimReady(emulator, {
      metadata: { name: "retained" },
      spec: { warmPoolRef: { name: "pool" }, lifecycle: { shutdownTime: soon, shutdownPolicy: "Retain" } },
    });
    const expiring = await claimReady(emulator, {
      metadata: { name: "expiring" },
      spec: { warmPoolRef: { name: "pool" }, lifecycle: { shutdownTime: soon } },
    });
    const events = await watch(emulator, `${EXT}/sandboxclaims?resourceVersion=${expiring.metadata.resourceVersion}`);
    // The two expire at the same instant, in either order: read until both were seen.
    let expiringDeleted = false;
    let retainedExpired = false;
    await events.until((event) => {
      if (event.type === "DELETED" && event.object.metadata.name === "expiring") expiringDeleted = true;
      if (
        event.object.metadata.name === "retained" &&
        event.object.status.conditions.some((c: Json) => c.reason === "ClaimExpired")
      ) {
        retainedExpired = true;
      }
      return expiringDeleted && retainedExpired;
    });
    events.close();
    await emulator.settle();
    assert.equal((await api(emulator, `${CORE_SANDBOXES}/${expiring.status.sandbox.name}`)).status, 404);
    assert.equal((await api(emulator, `${EXT}/sandboxclaims/retained`)).status, 200);
    assert.equal((await api(emulator, `${CORE_SANDBOXES}/${kept.status.sandbox.name}`)).status, 404);
  });
});

describe("Kubernetes emulator: Sandboxes made directly and the emulator's own view", { skip }, () => {
  let emulator: KubernetesEmulator;
  before(async () => {
    emulator = await startKubernetesEmulator({ warmPools: [] });
  });
  after(() => emulator.stop());

  test("POST a Sandbox with a podTemplate: it gets a pod and becomes Ready; DELETE removes pod and Sandbox", async () => {
    const events = await watch(emulator, `${CORE_SANDBOXES}?fieldSelector=metadata.name%3Ddirect`);
    const created = await api(emulator, CORE_SANDBOXES, {
      method: "POST",
      body: {
        metadata: { name: "direct", labels: { mine: "yes" } },
        spec: { podTemplate: { spec: { containers: [{ name: "sandboxd", image: "sandboxd" }] } } },
      },
    });
    assert.equal(created.status, 201);
    assert.equal(readyOf(created.body), "False");
    await events.until((event) => readyOf(event.object) === "True");
    events.close();
    assert.equal((await api(emulator, `${PODS_PATH}/direct`)).status, 200);
    assert.deepEqual(
      emulator.liveSandboxes().map((sandbox) => [sandbox.id, sandbox.state, sandbox.metadata.mine]),
      [["direct", "running", "yes"]],
    );
    const health = await fetch(`${emulator.routerUrl}/v1/health`, { headers: routing("direct", 8080) });
    assert.equal(health.status, 200);
    const missingTemplate = await api(emulator, CORE_SANDBOXES, {
      method: "POST",
      body: { metadata: { name: "x" }, spec: {} },
    });
    assert.equal(missingTemplate.status, 422);
    const deleted = await api(emulator, `${CORE_SANDBOXES}/direct`, { method: "DELETE" });
    assert.equal(deleted.status, 200);
    assert.equal((await api(emulator, `${PODS_PATH}/direct`)).status, 404);
    assert.equal((await api(emulator, `${CORE_SANDBOXES}/direct`)).status, 404);
    assert.deepEqual(emulator.liveSandboxes(), []);
  });
});
