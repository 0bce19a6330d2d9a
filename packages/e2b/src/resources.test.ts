// What an E2B sandbox was given, through the real e2b SDK against the E2B emulator: the handle's
// resources are the sizes E2B's answer reports (its template's), on getById and findByLabels (a launch's
// handle has none: the create's answer carries no sizes, and a launch pays no request to learn them);
// a launch asking for resources is refused before anything is created, since E2B takes them from the template.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LAUNCH_KEY_LABEL } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { DEFAULT_TEMPLATE_SIZE } from "@sandport/testkit/emulators/e2b";
import { Sandbox } from "e2b";
import { emulated } from "../test/emulated.js";

const OWNER = "resources-tests";
// Sized unlike the default, so a handle can only show it by reading E2B's answer.
const LARGE = { cpuCount: 8, memoryMB: 16_384, diskSizeMB: 20_480 };

const { emulator, runtime } = await emulated({ owner: OWNER }, { templates: { large: LARGE } });

test("getById and findByLabels say what E2B gave: the template's sizes, as its answer reports them", async () => {
  emulator.resetRequests();
  const handle = await runtime.launch({ template: "large", labels: { size: "large" } });
  assert.equal(handle.resources, undefined, "the create's answer has no sizes, and none is guessed");
  assert.equal(emulator.countRequests("GET /sandboxes/:id"), 0, "a launch reads nothing more to learn them");
  const reported = await Sandbox.getInfo(handle.id, emulator.sdkOptions);
  assert.deepEqual([reported.cpuCount, reported.memoryMB], [8, 16_384], "the emulator's answer");
  const granted = { cpus: 8, memoryMiB: 16_384 };
  assert.deepEqual((await runtime.getById(handle.id))?.resources, granted, "no disk: the SDK's info drops diskSizeMB");
  const [found, ...more] = await runtime.findByLabels({ size: "large" });
  assert.equal(more.length, 0);
  assert.deepEqual(found?.resources, granted, "a listed handle");
  await runtime.destroy(handle);
});

test("a sandbox of the default template reports that template's sizes, not another's", async () => {
  const handle = await runtime.launch({ launchKey: "default-size" });
  const expected = { cpus: DEFAULT_TEMPLATE_SIZE.cpuCount, memoryMiB: DEFAULT_TEMPLATE_SIZE.memoryMB };
  assert.deepEqual((await runtime.getById(handle.id))?.resources, expected);
  const [found] = await runtime.findByLabels({ [LAUNCH_KEY_LABEL]: "default-size" });
  assert.deepEqual(found?.resources, expected);
  await runtime.destroy(handle);
});

test("resources asked of a launch are refused UNSUPPORTED before any request, whichever is asked", async () => {
  emulator.resetRequests();
  for (const resources of [{ cpus: 8 }, { memoryMiB: 16_384 }, { diskMiB: 20_480 }, { maxProcesses: 10 }]) {
    const error = await expectCode(runtime.launch({ template: "large", resources }), "UNSUPPORTED");
    assert.match(error.message, /template/, JSON.stringify(resources));
  }
  assert.equal(emulator.countRequests(), 0, "nothing was created, nothing was asked");
});
