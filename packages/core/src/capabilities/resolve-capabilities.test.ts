import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RecordingRuntime } from "@sandport/testkit/fakes";
import { SandportError } from "../errors/sandport-error.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import type { DeclaredCapabilities } from "./declared-capabilities.js";
import type { EvidenceWarning } from "./evidence-applicability.js";
import type { EvidenceRecord } from "./evidence-record.js";
import { parseEvidenceRecord } from "./parse-evidence-record.js";
import { resolveCapabilities } from "./resolve-capabilities.js";

const declared: DeclaredCapabilities = {
  warmLease: "unknown",
  lifecycle: "unsupported",
  verifiedCleanup: "unknown",
  neverIdle: "not-exposed",
  binaryOutput: "unknown",
  memoryLimit: "unknown",
  cpuLimit: "unknown",
  processLimit: "unsupported",
  diskLimit: "unsupported",
  modes: {
    outputStreams: "unknown",
    filesystem: "ephemeral",
    lifetime: "unsupported",
    isolation: "unknown",
    networkPolicy: "unknown",
    stopKeeps: "unknown",
  },
  absent: { detachedLaunch: "unsupported", pty: "unsupported" },
};

function runtimeWith(capabilities: DeclaredCapabilities): SandboxRuntime {
  return Object.assign(new RecordingRuntime(), { capabilities }) as unknown as SandboxRuntime;
}

/** A valid record whose passing probes establish `observed`; `failed` names probes that failed. */
function evidence(
  observed: Record<string, unknown>,
  {
    provider = "recording",
    version = "1.2.3",
    failed = [] as string[],
    endpoint = { kind: "default" } as Record<string, unknown> | null,
  } = {},
): EvidenceRecord {
  return parseEvidenceRecord({
    format: endpoint === null ? "sandport-evidence-v2" : "sandport-evidence-v3",
    provider,
    ...(endpoint === null ? {} : { endpoint }),
    adapter: { package: `@sandport/${provider}`, version },
    sdks: {},
    recordedAt: "2026-11-29T12:00:00Z",
    runId: "canary-1",
    conformance: { passed: 70, failed: 0, skipped: 7, failures: [] },
    probes: [
      ...Object.entries(observed).map(([capability, value]) => ({
        capability,
        outcome: "passed",
        value,
        durationMs: 5,
      })),
      ...failed.map((capability) => ({
        capability,
        outcome: "failed",
        reason: "PROVIDER_UNAVAILABLE: 500",
        durationMs: 7,
      })),
    ],
    observed,
  });
}

/** Resolves with adapter version 1.2.3 (none for `null`), collecting warnings instead of printing them. */
function resolveWith(
  records: EvidenceRecord | EvidenceRecord[],
  adapterVersion: string | null = "1.2.3",
  liveEndpoints?: string[],
) {
  const warnings: EvidenceWarning[] = [];
  const resolved = resolveCapabilities(runtimeWith(declared), records, {
    ...(adapterVersion === null ? {} : { adapterVersion }),
    ...(liveEndpoints === undefined ? {} : { liveEndpoints }),
    onWarning: (warning) => warnings.push(warning),
  });
  return { resolved, warnings };
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
    const { resolved, warnings } = resolveWith(
      evidence({
        warmLease: true,
        verifiedCleanup: true,
        neverIdle: true,
        outputStreams: "separate",
        filesystem: "persistent",
        lifetime: "deadline",
      }),
    );
    assert.deepEqual(warnings, []);
    assert.equal(resolved.warmLease, true);
    assert.equal(resolved.sources.warmLease, "observed");
    assert.deepEqual(resolved.observedAt.warmLease, ["default"]);
    assert.equal(resolved.observedAt.neverIdle, undefined);
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

  test("a failed probe promotes nothing, and neither do records that disagree", () => {
    const failed = resolveWith([evidence({ warmLease: true }), evidence({}, { failed: ["warmLease"] })]).resolved;
    assert.equal(failed.warmLease, "unknown");
    assert.equal(failed.sources.warmLease, "declared");
    const disagree = resolveWith([evidence({ outputStreams: "separate" }), evidence({ outputStreams: "combined" })]);
    assert.equal(disagree.resolved.outputStreams, "unknown");
    const agree = resolveWith([evidence({ outputStreams: "combined" }), evidence({ outputStreams: "combined" })]);
    assert.equal(agree.resolved.outputStreams, "combined");
  });

  test("ignores, with a warning, evidence for another provider", () => {
    const { resolved, warnings } = resolveWith(evidence({ warmLease: true }, { provider: "e2b" }));
    assert.equal(resolved.warmLease, "unknown");
    assert.deepEqual(
      warnings.map((warning) => warning.code),
      ["EVIDENCE_OTHER_PROVIDER"],
    );
    assert.match(warnings[0]?.message ?? "", /provider "e2b", not "recording"/);
  });

  test("ignores, with a warning, evidence for another adapter version, and applies the matching one", () => {
    const { resolved, warnings } = resolveWith([
      evidence({ warmLease: true }, { version: "1.2.2" }),
      evidence({ verifiedCleanup: true }),
    ]);
    assert.equal(resolved.warmLease, "unknown");
    assert.equal(resolved.verifiedCleanup, true);
    assert.equal(resolved.sources.verifiedCleanup, "observed");
    assert.deepEqual(
      warnings.map((warning) => [warning.code, warning.record.adapter.version]),
      [["EVIDENCE_OTHER_VERSION", "1.2.2"]],
    );
  });

  test("ignores every record, with a warning, when the adapter version is not given", () => {
    const { resolved, warnings } = resolveWith(evidence({ warmLease: true }), null);
    assert.equal(resolved.warmLease, "unknown");
    assert.deepEqual(
      warnings.map((warning) => warning.code),
      ["EVIDENCE_VERSION_UNKNOWN"],
    );
  });

  test("evidence gathered at a custom endpoint (an emulator) never promotes by default", () => {
    const emulator = { kind: "custom", url: "http://127.0.0.1:4010/" };
    const { resolved, warnings } = resolveWith(evidence({ warmLease: true }, { endpoint: emulator }));
    assert.equal(resolved.warmLease, "unknown");
    assert.equal(resolved.sources.warmLease, "declared");
    assert.deepEqual(resolved.observedAt, {});
    assert.deepEqual(
      warnings.map((warning) => warning.code),
      ["EVIDENCE_CUSTOM_ENDPOINT"],
    );
    assert.match(warnings[0]?.message ?? "", /gathered at http:\/\/127\.0\.0\.1:4010, not at the provider's default/);
    // Naming another endpoint as the real service changes nothing.
    assert.equal(
      resolveWith(evidence({ warmLease: true }, { endpoint: emulator }), "1.2.3", ["http://127.0.0.1:4011"]).resolved
        .warmLease,
      "unknown",
    );
  });

  test("a custom endpoint the caller names as the real service promotes, and says where it was observed", () => {
    const selfHosted = { kind: "custom", url: "https://daytona.example.com/api" };
    const { resolved, warnings } = resolveWith(
      [evidence({ warmLease: true }, { endpoint: selfHosted }), evidence({ warmLease: true, verifiedCleanup: true })],
      "1.2.3",
      ["https://daytona.example.com/api/"],
    );
    assert.deepEqual(warnings, []);
    assert.equal(resolved.warmLease, true);
    assert.equal(resolved.sources.warmLease, "observed");
    assert.deepEqual(resolved.observedAt.warmLease, ["https://daytona.example.com/api", "default"]);
    assert.deepEqual(resolved.observedAt.verifiedCleanup, ["default"]);
  });

  test("a v2 record, which does not say where it was gathered, promotes nothing", () => {
    const old = evidence({ warmLease: true }, { endpoint: null });
    assert.equal(old.format, "sandport-evidence-v2");
    assert.equal(old.endpoint, undefined);
    const { resolved, warnings } = resolveWith(old, "1.2.3", ["http://127.0.0.1:4010"]);
    assert.equal(resolved.warmLease, "unknown");
    assert.deepEqual(
      warnings.map((warning) => warning.code),
      ["EVIDENCE_ENDPOINT_UNRECORDED"],
    );
  });

  test("by default the warning goes to process.emitWarning", async () => {
    const seen = new Promise<Error>((resolve) => process.once("warning", resolve));
    resolveCapabilities(runtimeWith(declared), evidence({ warmLease: true }, { provider: "e2b" }), {
      adapterVersion: "1.2.3",
    });
    const warning = (await seen) as Error & { code?: string };
    assert.equal(warning.name, "SandportEvidenceWarning");
    assert.equal(warning.code, "EVIDENCE_OTHER_PROVIDER");
  });
});

describe("parseEvidenceRecord", () => {
  const valid = {
    format: "sandport-evidence-v3",
    provider: "e2b",
    endpoint: { kind: "default" },
    adapter: { package: "@sandport/e2b", version: "0.1.0" },
    sdks: { e2b: "2.51.0" },
    recordedAt: "2026-11-29T12:00:00.123Z",
    runId: "https://ci/run/1",
    conformance: { passed: 70, failed: 1, skipped: 7, failures: ["exec.timeout: ..."] },
    probes: [
      { capability: "verifiedCleanup", outcome: "passed", value: true, durationMs: 812.5 },
      { capability: "warmLease", outcome: "passed", value: true, durationMs: 30_812, parameters: { idleMs: 30_000 } },
      { capability: "isolation", outcome: "passed", value: "microvm", durationMs: 3 },
      { capability: "lifecycle", outcome: "failed", reason: "PROVIDER_UNAVAILABLE: 500", durationMs: 40 },
    ],
    observed: { verifiedCleanup: true, warmLease: true, isolation: "microvm" },
  };

  test("accepts a well-formed record, failed probes and probe parameters included", () => {
    assert.deepEqual(parseEvidenceRecord(valid), valid);
    const custom = { ...valid, endpoint: { kind: "custom", url: "http://user:secret@127.0.0.1:9/api/?token=x#y" } };
    assert.deepEqual(parseEvidenceRecord(custom).endpoint, { kind: "custom", url: "http://127.0.0.1:9/api" });
  });

  test("reads a v2 record without an endpoint, and says so", () => {
    const { endpoint: _endpoint, ...old } = { ...valid, format: "sandport-evidence-v2" };
    const parsed = parseEvidenceRecord(old);
    assert.equal(parsed.format, "sandport-evidence-v2");
    assert.equal("endpoint" in parsed, false);
  });

  test("rejects malformed records", () => {
    const [cleanup, warm, isolation, lifecycle] = valid.probes;
    const malformed: unknown[] = [
      null,
      [],
      "{}",
      { ...valid, format: "sandport-evidence-v1" }, // names no adapter version
      { ...valid, endpoint: undefined }, // a v3 record says where it was gathered
      { ...valid, endpoint: { kind: "emulator" } },
      { ...valid, endpoint: { kind: "custom" } },
      { ...valid, endpoint: { kind: "custom", url: "not a url" } },
      { ...valid, probes: [cleanup, { ...warm, parameters: { idleMs: [1] } }, isolation, lifecycle] },
      { ...valid, provider: "" },
      { ...valid, runId: 3 },
      { ...valid, recordedAt: "yesterday" },
      { ...valid, adapter: { package: "@sandport/e2b" } },
      { ...valid, adapter: "0.1.0" },
      { ...valid, sdks: { e2b: "" } },
      { ...valid, conformance: { passed: 1, failed: 0, skipped: 0, failures: ["x"] } },
      { ...valid, conformance: { passed: -1, failed: 0, skipped: 0, failures: [] } },
      { ...valid, probes: {} },
      { ...valid, probes: [cleanup, cleanup] },
      { ...valid, probes: [cleanup, warm, isolation, { ...lifecycle, outcome: "skipped" }] },
      { ...valid, probes: [cleanup, warm, isolation, { ...lifecycle, reason: "" }] },
      { ...valid, probes: [cleanup, warm, { ...isolation, value: "vm" }, lifecycle] },
      { ...valid, probes: [{ ...cleanup, durationMs: -1 }, warm, isolation, lifecycle] },
      { ...valid, probes: [{ ...cleanup, capability: "reattach" }, warm, isolation, lifecycle] }, // structural
      { ...valid, observed: [] },
      { ...valid, observed: { verifiedCleanup: false, warmLease: true, isolation: "microvm" } },
      { ...valid, observed: { verifiedCleanup: "unsupported", warmLease: true, isolation: "microvm" } },
      { ...valid, observed: { verifiedCleanup: true, warmLease: true, isolation: "vm" } },
      { ...valid, observed: { verifiedCleanup: true, warmLease: true, isolation: "microvm", teleport: true } },
      { ...valid, observed: { verifiedCleanup: true, warmLease: true } }, // a passed probe missing from observed
      { ...valid, observed: { ...valid.observed, lifecycle: true } }, // observed although its probe failed
      { ...valid, observed: { ...valid.observed, neverIdle: true } }, // observed without any probe
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
