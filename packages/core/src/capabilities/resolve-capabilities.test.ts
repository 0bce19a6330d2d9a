import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { SandportError } from "../errors/sandport-error.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import type { DeclaredCapabilities } from "./declared-capabilities.js";
import { type EvidenceRecord, parseEvidenceRecord } from "./evidence-record.js";
import { resolveCapabilities } from "./resolve-capabilities.js";

const declared: DeclaredCapabilities = {
  warmLease: "unknown",
  lifecycle: "unsupported",
  verifiedCleanup: "unknown",
  neverIdle: "not-exposed",
  binaryOutput: "unknown",
  pty: "unsupported",
  modes: { outputStreams: "unknown", filesystem: "ephemeral", lifetime: "unsupported", isolation: "unknown" },
  absent: { detachedLaunch: "unsupported" },
};

function runtimeWith(capabilities: DeclaredCapabilities): SandboxRuntime {
  return Object.assign(new RecordingRuntime(), { capabilities }) as unknown as SandboxRuntime;
}

function evidence(observed: Record<string, unknown>, provider = "recording"): EvidenceRecord {
  return parseEvidenceRecord({
    format: "sandport-evidence-v1",
    provider,
    recordedAt: "2026-11-29T12:00:00Z",
    runId: "canary-1",
    observed,
  });
}

describe("resolveCapabilities", () => {
  test("derives structural capabilities from the methods present", () => {
    const resolved = resolveCapabilities(runtimeWith(declared));
    assert.equal(resolved.reattach, true); // getById
    assert.equal(resolved.labelSearch, true); // findByLabels
    assert.equal(resolved.streaming, true); // execStream
    assert.equal(resolved.asyncExec, "not-exposed"); // no startCommand: default reason
    assert.equal(resolved.fileOps, "not-exposed");
    assert.equal(resolved.detachedLaunch, "unsupported"); // declared reason
    assert.equal(resolved.sources.reattach, "structural");
  });

  test("asyncExec needs getById as well as start/status/logs", () => {
    const runtime = Object.assign(new RecordingRuntime(), {
      startCommand: async () => ({ sessionId: "s", commandId: "c" }),
      commandStatus: async () => ({ state: "exited", exitCode: 0 }),
      commandLogs: async () => ({}),
    }) as unknown as SandboxRuntime;
    assert.equal(resolveCapabilities(runtime).asyncExec, true);
    Object.assign(runtime, { getById: undefined });
    assert.equal(resolveCapabilities(runtime).asyncExec, "not-exposed");
  });

  test("evidence promotes only unknown cells", () => {
    const resolved = resolveCapabilities(
      runtimeWith(declared),
      evidence({
        warmLease: true,
        verifiedCleanup: true,
        neverIdle: true,
        outputStreams: "separate",
        filesystem: "persistent",
        lifetime: "deadline",
      }),
    );
    assert.equal(resolved.warmLease, true);
    assert.equal(resolved.sources.warmLease, "observed");
    assert.equal(resolved.verifiedCleanup, true);
    assert.equal(resolved.outputStreams, "separate");
    assert.equal(resolved.sources.outputStreams, "observed");
    // Declared answers stand, whatever the record says.
    assert.equal(resolved.neverIdle, "not-exposed");
    assert.equal(resolved.sources.neverIdle, "declared");
    assert.equal(resolved.filesystem, "ephemeral");
    assert.equal(resolved.lifetime, "unsupported");
    // Nothing observed: still unknown.
    assert.equal(resolved.isolation, "unknown");
  });

  test("without evidence, unknown stays unknown", () => {
    const resolved = resolveCapabilities(runtimeWith(declared));
    assert.equal(resolved.warmLease, "unknown");
    assert.equal(resolved.sources.warmLease, "declared");
  });

  test("refuses evidence for another provider", () => {
    assert.throws(
      () => resolveCapabilities(runtimeWith(declared), evidence({ warmLease: true }, "e2b")),
      (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST"),
    );
  });
});

describe("parseEvidenceRecord", () => {
  const valid = {
    format: "sandport-evidence-v1",
    provider: "e2b",
    recordedAt: "2026-11-29T12:00:00.123Z",
    runId: "https://ci/run/1",
    observed: { verifiedCleanup: true, isolation: "microvm" },
  };

  test("accepts a well-formed record", () => {
    assert.deepEqual(parseEvidenceRecord(valid), valid);
  });

  test("rejects malformed records", () => {
    const malformed: unknown[] = [
      null,
      [],
      "{}",
      { ...valid, format: "v0" },
      { ...valid, provider: "" },
      { ...valid, runId: 3 },
      { ...valid, recordedAt: "yesterday" },
      { ...valid, observed: [] },
      { ...valid, observed: { verifiedCleanup: false } },
      { ...valid, observed: { verifiedCleanup: "unsupported" } },
      { ...valid, observed: { isolation: "vm" } },
      { ...valid, observed: { reattach: true } }, // structural: evidence cannot speak for methods
      { ...valid, observed: { teleport: true } },
    ];
    for (const record of malformed) {
      assert.throws(
        () => parseEvidenceRecord(record),
        (error: unknown) => SandportError.hasCode(error, "INVALID_REQUEST"),
        JSON.stringify(record),
      );
    }
  });
});
