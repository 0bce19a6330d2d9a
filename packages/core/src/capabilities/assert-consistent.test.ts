import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RecordingRuntime, recordingCapabilities } from "@sandport/testkit/fakes";
import { SandportError } from "../errors/sandport-error.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { assertCapabilitiesConsistent, findCapabilityContradictions } from "./assert-consistent.js";

function runtime(overrides: Record<string, unknown>): SandboxRuntime {
  return Object.assign(new RecordingRuntime(), overrides) as unknown as SandboxRuntime;
}
const noop = async () => {};

describe("assertCapabilitiesConsistent", () => {
  test("a consistent runtime passes", () => {
    assert.doesNotThrow(() => assertCapabilitiesConsistent(new RecordingRuntime()));
  });

  test("throws CAPABILITY_MISMATCH when lifecycle is declared but stop/start are missing", () => {
    const broken = runtime({ capabilities: { ...recordingCapabilities, lifecycle: true } });
    assert.throws(
      () => assertCapabilitiesConsistent(broken),
      (error: unknown) => SandportError.hasCode(error, "CAPABILITY_MISMATCH") && /lifecycle/.test(error.message),
    );
  });

  test("flags stop/start present while lifecycle is declared unsupported", () => {
    const problems = findCapabilityContradictions(runtime({ stop: noop, start: noop }));
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? "", /declared unsupported/);
  });

  test("flags what survives a stop declared for a runtime without stop/start", () => {
    const modes = { ...recordingCapabilities.modes, stopKeeps: "filesystem" };
    const problems = findCapabilityContradictions(runtime({ capabilities: { ...recordingCapabilities, modes } }));
    assert.match(problems.join(), /modes.stopKeeps is declared filesystem but stop\/start are missing/);
    const absent = { ...recordingCapabilities.modes, stopKeeps: "unsupported" };
    assert.deepEqual(
      findCapabilityContradictions(runtime({ capabilities: { ...recordingCapabilities, modes: absent } })),
      [],
    );
  });

  test("flags half-implemented method groups", () => {
    assert.match(findCapabilityContradictions(runtime({ startCommand: noop })).join(), /asyncExec is half-implemented/);
    assert.match(findCapabilityContradictions(runtime({ listDir: noop, stat: noop })).join(), /fileOps/);
  });

  test("flags an absence declared for methods that exist", () => {
    const problems = findCapabilityContradictions(
      runtime({ capabilities: { ...recordingCapabilities, absent: { streaming: "unsupported" } } }),
    );
    assert.match(problems.join(), /absent.streaming/);
  });

  test("flags illegal values and a wrong specification version", () => {
    const problems = findCapabilityContradictions(
      runtime({
        specificationVersion: "sandbox-v0",
        capabilities: {
          ...recordingCapabilities,
          warmLease: false,
          modes: { ...recordingCapabilities.modes, isolation: "vm" },
        },
      }),
    );
    assert.equal(problems.length, 3, problems.join("\n"));
  });
});
