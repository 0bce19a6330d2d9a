// `sandport canary` as a child process: the conformance suite and the probes against the E2B
// emulator through --endpoint (and against the local runtime), the evidence record it writes, a
// probe failed by an injected fault, and a provider without credentials.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { type EvidenceRecord, parseEvidenceRecord } from "@sandport/core";
import { CONFORMANCE_CHECKS } from "@sandport/testkit/conformance";
import { namespacesSkipReason } from "@sandport/testkit/fakes";
import { localOptions, runCli, scratchDirectory, UMBRELLA, useE2BEmulator } from "../cli.fixture.js";
import { EXIT } from "../exit-codes.js";

const e2bPackage = join(UMBRELLA, "..", "e2b", "package.json");
const adapterVersion = JSON.parse(readFileSync(e2bPackage, "utf8")).version as string;
const sdkVersion = JSON.parse(readFileSync(createRequire(e2bPackage).resolve("e2b/package.json"), "utf8"))
  .version as string;

/** Checks a run keeps when the whole suite is not what a test is about: one of each kind, all quick. */
const KEPT_CHECKS = new Set(["files.text", "files.path-escapes", "exec.shell", "exec.cwd"]);
/** `--skip-check` for every other check: the first E2B test runs the whole suite once; the rest need not. */
const SKIP_MOST = Object.keys(CONFORMANCE_CHECKS)
  .filter((id) => !KEPT_CHECKS.has(id))
  .flatMap((id) => ["--skip-check", id]);

/**
 * How a command ends (budget, cap, kill deadline, signal): the slowest family of checks, run on
 * E2B by its own conformance test.
 */
const COMMAND_ENDINGS = Object.keys(CONFORMANCE_CHECKS).filter((id) =>
  /\.(timeout-result|output-cap-result|kill-deadline|exit-after-output|signal-exit|kill-result)$/.test(id),
);
/**
 * The checks that wait out a kill's settle (the suite's `promptMs`, 5 s by default) before proving
 * nothing survived it: E2B's own conformance test runs them too. The record this test reads keeps
 * every other check.
 */
const KILL_SETTLES = [
  "exec.timeout",
  "exec.op-deadline",
  "exec.abort",
  "streaming.abort",
  "streaming.early-break",
  "lifecycle.destroy-running",
];
const SKIP_SLOW = [...COMMAND_ENDINGS, ...KILL_SETTLES].flatMap((id) => ["--skip-check", id]);

describe("sandport canary (E2B emulator)", () => {
  const fixture = useE2BEmulator("canary");
  const canary = (out: string, ...args: string[]) =>
    runCli(
      ["canary", "--provider", "e2b", "--endpoint", fixture.emulator().url, "--out", out, "--idle", "0s", ...args],
      { env: fixture.env() },
    );
  const read = (path: string): EvidenceRecord => parseEvidenceRecord(JSON.parse(readFileSync(path, "utf8")));

  test("writes a valid evidence record: versions, the suite's outcome, each probe with its timing", async () => {
    const out = join(fixture.scratch, "evidence", "e2b.json");
    // Without bubblewrap the emulator's home is a host directory, which a command in /tmp cannot reach by its path.
    const unisolated = (await namespacesSkipReason()) === undefined ? [] : ["--skip-check", "exec.cwd-anywhere"];
    const { code, stdout, stderr } = await canary(out, "--run-id", "test-run-1", ...SKIP_SLOW, ...unisolated);
    assert.ok(COMMAND_ENDINGS.length >= 20, "the command-ending checks are found by their ids");
    assert.equal(code, EXIT.OK, stderr);
    assert.match(stdout, /canary e2b: passed .*evidence .*written to .*e2b\.json/);
    const record = read(out);
    assert.equal(record.provider, "e2b");
    assert.deepEqual(record.adapter, { package: "@sandport/e2b", version: adapterVersion });
    assert.deepEqual(record.sdks, { e2b: sdkVersion });
    assert.equal(record.runId, "test-run-1");
    assert.ok(Date.now() - Date.parse(record.recordedAt) < 10 * 60_000);
    assert.equal(record.conformance.failed, 0, record.conformance.failures.join("\n"));
    assert.ok(record.conformance.passed > 50, `${record.conformance.passed} checks passed`);
    // E2B declares warmLease, lifecycle, neverIdle, filesystem and stopKeeps unknown; neverIdle has no probe.
    assert.deepEqual(
      record.probes.map((probe) => [probe.capability, probe.outcome]),
      [
        ["warmLease", "passed"],
        ["lifecycle", "passed"],
        ["filesystem", "passed"],
        ["stopKeeps", "passed"],
      ],
    );
    for (const probe of record.probes) assert.ok(probe.durationMs > 0, `${probe.capability} has a timing`);
    // The emulator's pause kills the sandbox's processes and keeps its files (its README says so).
    assert.deepEqual(record.observed, {
      warmLease: true,
      lifecycle: true,
      filesystem: "persistent",
      stopKeeps: "filesystem",
    });
    assert.deepEqual(fixture.emulator().liveSandboxes(), [], "the suite and the probes left nothing behind");
    // Where it was gathered, and with what: the emulator's URL, and the idle time of the warm-lease probe.
    assert.deepEqual(record.endpoint, { kind: "custom", url: fixture.emulator().url.replace(/\/$/, "") });
    assert.deepEqual(record.probes[0]?.parameters, { idleMs: 0 });
    assert.match(stdout, /evidence \(gathered at http:\/\/127\.0\.0\.1:\d+, not the default endpoint\) written/);

    // Emulator evidence is never shown as live: it promotes nothing by default.
    const listing = await runCli(["capabilities", "--provider", "e2b", "--evidence", out, "--json"]);
    const [listed] = JSON.parse(listing.stdout).providers;
    assert.deepEqual(listed.capabilities.lifecycle, { value: "unknown", mark: "absent", source: "declared" });
    assert.deepEqual(
      listed.warnings.map((warning: { code: string }) => warning.code),
      ["EVIDENCE_CUSTOM_ENDPOINT"],
    );
    // Named as the real service, the record promotes exactly the probed cells, marked with where.
    const vouched = ["capabilities", "--provider", "e2b", "--evidence", out, "--live-endpoint", fixture.emulator().url];
    const cells = JSON.parse((await runCli([...vouched, "--json"])).stdout).providers[0].capabilities;
    assert.equal(cells.lifecycle.value, true);
    assert.equal(cells.lifecycle.mark, "observed");
    assert.deepEqual(cells.lifecycle.observedAt, [record.endpoint?.kind === "custom" ? record.endpoint.url : ""]);
    assert.deepEqual(cells.neverIdle, { value: "unknown", mark: "absent", source: "declared" });
    assert.match((await runCli(vouched)).stdout, /^lifecycle +yes \(observed, custom endpoint\)$/m);
  });

  test("a probe failed by an injected fault is recorded as failed, with its reason, and exits 1", async () => {
    const out = join(fixture.scratch, "faulted.json");
    const emulator = fixture.emulator();
    emulator.injectFault({
      route: "POST /sandboxes/:id/pause",
      fault: { kind: "status", status: 500 },
      times: 1_000,
    });
    try {
      // The probes are what this test is about (the suite's own stop/start check would meet the same fault).
      const { code, stdout } = await canary(out, ...SKIP_MOST, "--json");
      assert.equal(code, EXIT.FAILED);
      const record = read(out);
      assert.deepEqual(JSON.parse(stdout), record, "--json prints the record it wrote");
      assert.equal(record.conformance.failed, 0, record.conformance.failures.join("\n"));
      assert.ok(record.conformance.passed >= KEPT_CHECKS.size, `${record.conformance.passed} checks passed`);
      const outcomes = Object.fromEntries(record.probes.map((probe) => [probe.capability, probe]));
      assert.equal(outcomes.warmLease?.outcome, "passed");
      for (const capability of ["lifecycle", "filesystem", "stopKeeps"]) {
        const probe = outcomes[capability];
        assert.equal(probe?.outcome, "failed", capability);
        assert.match(probe?.outcome === "failed" ? probe.reason : "", /^PROVIDER_UNAVAILABLE: /);
      }
      assert.deepEqual(record.observed, { warmLease: true });
    } finally {
      emulator.clearFaults();
    }
    assert.deepEqual(emulator.liveSandboxes(), [], "failed probes still destroyed their sandboxes");
  });

  test("an unknown --skip-check id is a usage error (2) listing the known ids, and writes no record", async () => {
    const out = join(fixture.scratch, "typo.json");
    const { code, stdout, stderr } = await canary(out, "--skip-check", "files.text", "--skip-check", "exec.timout");
    assert.equal(code, EXIT.USAGE, stderr);
    assert.equal(stdout, "");
    assert.match(
      stderr,
      /--skip-check exec\.timout: no such conformance check \(known ids: .*files\.text.*\) \[USAGE\]/,
    );
    assert.equal(existsSync(out), false);
    assert.deepEqual(fixture.emulator().liveSandboxes(), []);
  });

  test("without credentials the provider is skipped with one line, exit 3, and no record", async () => {
    const out = join(fixture.scratch, "skipped.json");
    const { code, stdout, stderr } = await runCli(["canary", "--provider", "e2b", "--out", out]);
    assert.equal(code, EXIT.NOT_CONFIGURED);
    assert.equal(stdout, "");
    assert.equal(stderr, "e2b: skipped, SANDPORT_E2B_API_KEY not set\n");
    assert.equal(existsSync(out), false);
  });
});

describe("sandport canary (local)", () => {
  const scratch = scratchDirectory("canary-local");
  after(() => scratch.remove());

  // The whole suite runs against the local runtime in the testkit's own conformance test; here, the command.
  test("runs the suite against the local runtime; nothing is unknown, so nothing is probed", async () => {
    const out = join(scratch.path, "local.json");
    const { code, stderr } = await runCli([
      "canary",
      "--provider",
      "local",
      ...localOptions(join(scratch.path, "root")),
      "--out",
      out,
      ...SKIP_MOST,
    ]);
    assert.equal(code, EXIT.OK, stderr);
    assert.match(stderr, /✔ conformance: \d+ passed, 0 failed/);
    // Off a terminal, a line per step and per suite, each written once.
    const lines = stderr.split("\n").filter((line) => line !== "");
    assert.deepEqual(
      lines.filter((line) => line === "… canary local: conformance suite"),
      ["… canary local: conformance suite"],
    );
    assert.ok(
      lines.some((line) => /^ {2}✔ files$/.test(line)),
      stderr,
    );
    assert.equal(new Set(lines).size, lines.length, `a line repeated:\n${stderr}`);
    const record = parseEvidenceRecord(JSON.parse(readFileSync(out, "utf8")));
    assert.equal(record.provider, "local");
    assert.equal(record.conformance.failed, 0, record.conformance.failures.join("\n"));
    assert.ok(record.conformance.passed >= KEPT_CHECKS.size, `${record.conformance.passed} checks passed`);
    assert.deepEqual(record.sdks, {});
    assert.deepEqual(record.probes, []);
    assert.deepEqual(record.endpoint, { kind: "default" });
    assert.match(record.runId, /^local-\d+$/);
  });
});
