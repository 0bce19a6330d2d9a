// Launch through the real SDK against the emulator: the lifetime becomes
// sessionTimeoutSeconds, the clientToken comes from the launch key, the labels
// ride in the name (as digests) and the labels file, and what AgentCore cannot
// do is refused before any request.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { BedrockAgentCoreClient, GetCodeInterpreterSessionCommand } from "@aws-sdk/client-bedrock-agentcore";
import { expectCode } from "@sandport/testkit/assertions";
import { emulated } from "../test/emulated.js";
import { MAX_LABELS } from "./ownership.js";

const { emulator, runtime, runtimeWith } = await emulated({ owner: "launch-tests" });
const client = new BedrockAgentCoreClient({
  region: emulator.region,
  endpoint: emulator.endpoint,
  credentials: { accessKeyId: "AKIDTEST", secretAccessKey: "test" },
});
after(() => client.destroy());
const session = (sessionId: string) =>
  client.send(new GetCodeInterpreterSessionCommand({ codeInterpreterIdentifier: "aws.codeinterpreter.v1", sessionId }));

test("the lifetime is sent as sessionTimeoutSeconds, rounded up; the name carries digests, not the labels", async () => {
  const handle = await runtime.launch({ lifetimeMs: 90_500, labels: { team: "alpha" } });
  try {
    const found = await session(handle.id);
    assert.equal(found.sessionTimeoutSeconds, 91);
    assert.match(found.name ?? "", /^sandport_[0-9a-f]{8}_[0-9a-f]{16}$/);
    assert.ok(!(found.name ?? "").includes("alpha"));
    assert.equal((await session((await runtime.launch({})).id)).sessionTimeoutSeconds, 3600, "the default lifetime");
  } finally {
    for (const found of await runtime.findByLabels({})) await runtime.destroy(found);
  }
});

test("a launch key gives one clientToken: the same key starts the same session, another owner's does not", async () => {
  const first = await runtime.launch({ launchKey: "key-one" });
  const again = await runtime.launch({ launchKey: "key-one" });
  const other = await runtimeWith({ owner: "launch-tests-other" }).launch({ launchKey: "key-one" });
  try {
    assert.equal(again.id, first.id);
    assert.notEqual(other.id, first.id);
  } finally {
    await runtime.destroy(first);
    await runtimeWith({ owner: "launch-tests-other" }).destroy(other);
  }
});

test("what AgentCore cannot take is refused before any request", async () => {
  const before = emulator.requests.length;
  const tooMany = Object.fromEntries(Array.from({ length: MAX_LABELS + 1 }, (_, index) => [`k${index}`, "v"]));
  await expectCode(() => runtime.launch({ labels: tooMany }), "INVALID_REQUEST", `${MAX_LABELS + 1} labels`);
  await expectCode(() => runtime.launch({ lifetimeMs: 28_800_001 }), "INVALID_REQUEST", "a lifetime past 8 hours");
  await expectCode(() => runtime.launch({ template: "python" }), "UNSUPPORTED", "a template");
  await expectCode(() => runtime.launch({ resources: { cpus: 4 } }), "UNSUPPORTED", "resources");
  await expectCode(() => runtime.launch({ ports: [8080] }), "UNSUPPORTED", "ports");
  await expectCode(() => runtime.launch({ network: true }), "UNSUPPORTED", "network other than the interpreter's");
  assert.equal(emulator.requests.length, before, "nothing was sent");
  assert.equal(MAX_LABELS, 9);
  const full = Object.fromEntries(Array.from({ length: MAX_LABELS }, (_, index) => [`k${index}`, "v".repeat(200)]));
  const handle = await runtime.launch({ labels: full });
  try {
    const reopened = runtimeWith({});
    assert.deepEqual({ ...(await reopened.getById(handle.id))?.labels }, full, "nine long labels survive reattach");
  } finally {
    await runtime.destroy(handle);
  }
});

test("the launch env reaches every command, and a labels file that disagrees with the name makes the session foreign", async () => {
  const handle = await runtime.launch({ env: { FROM_LAUNCH: "it's here" } });
  try {
    assert.equal((await runtime.exec(handle, { shell: 'printf %s "$FROM_LAUNCH"' })).stdout, "it's here");
    // Commands start in the workspace; the state directory is its sibling.
    await runtime.exec(handle, { shell: "printf '{}' > ../.sandport/labels.json" });
    await expectCode(
      () => runtimeWith({}).getById(handle.id),
      "FOREIGN_SANDBOX",
      "a session whose labels file was replaced",
    );
  } finally {
    await runtime.destroy(handle).catch(() => undefined);
  }
});

test("a launch without labels or env is one request, the Start: its name carries the launch key, and nothing else is written", async () => {
  emulator.resetRequests();
  const handle = await runtime.launch({ launchKey: "bare-launch.1" });
  try {
    assert.deepEqual(
      emulator.requests.map((request) => request.route),
      ["StartCodeInterpreterSession"],
    );
    assert.match((await session(handle.id)).name ?? "", /^sandport_[0-9a-f]{16}_bare-launch\.1$/);
    const reopened = runtimeWith({});
    emulator.resetRequests();
    const found = await reopened.getById(handle.id);
    assert.equal(found?.id, handle.id);
    assert.deepEqual({ ...found?.labels }, { ...handle.labels });
    assert.deepEqual(
      emulator.requests.map((request) => request.route),
      ["GetCodeInterpreterSession"],
      "the labels come from the name: no file is read",
    );
    assert.deepEqual(
      (await reopened.findByLabels({ "sandport.launch-key": "bare-launch.1" })).map((one) => one.id),
      [handle.id],
    );
    assert.deepEqual(await reopened.findByLabels({ "sandport.launch-key": "bare-launch.2" }), []);
    assert.deepEqual(await reopened.findByLabels({ team: "alpha" }), [], "it carries no caller label");
    await expectCode(() => runtimeWith({ owner: "someone-else" }).getById(handle.id), "FOREIGN_SANDBOX");
    assert.deepEqual(await runtimeWith({ owner: "someone-else" }).findByLabels({}), []);
    // The workspace is made by the first thing that needs it: here a command in it.
    const ran = await runtime.exec(handle, { shell: 'test "$(basename "$PWD")" = workspace && echo in-workspace' });
    assert.deepEqual([ran.exitCode, ran.stdout], [0, "in-workspace\n"], ran.stderr);
  } finally {
    await runtime.destroy(handle);
  }
});

test("a launch with labels or env keeps its setup command; a launch key too long for the name too", async () => {
  for (const spec of [{ labels: { team: "alpha" } }, { env: { A: "1" } }, { launchKey: "k".repeat(75) }]) {
    emulator.resetRequests();
    const handle = await runtime.launch(spec);
    try {
      assert.deepEqual(
        emulator.requests.map((request) => request.route),
        ["StartCodeInterpreterSession", "InvokeCodeInterpreter"],
        JSON.stringify(spec),
      );
      assert.match((await session(handle.id)).name ?? "", /^sandport_[0-9a-f]{8}_[0-9a-f]{8}/);
      assert.deepEqual({ ...(await runtimeWith({}).getById(handle.id))?.labels }, { ...handle.labels });
    } finally {
      await runtime.destroy(handle);
    }
  }
});
