// `sandport doctor` as a child process: a missing bubblewrap reported with its fix, credentials by
// name only, and a throwaway local launch that proves the runtime works.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { runCli, scratchDirectory } from "../cli.fixture.js";
import type { DoctorCheck } from "../doctor/check.js";
import { EXIT } from "../exit-codes.js";

const SECRET = "e2b_doctor_secret_value_0123456789";

async function doctor(args: string[], env: Record<string, string> = {}) {
  const result = await runCli(["doctor", ...args, "--json"], { env });
  const report = JSON.parse(result.stdout) as { ok: boolean; checks: DoctorCheck[] };
  const find = (scope: string, name: string) =>
    report.checks.find((check) => check.scope === scope && check.name === name);
  return { ...result, report, find };
}

/** `scope name` of each failed check. */
function failedChecks(checks: readonly DoctorCheck[]): string[] {
  return checks.filter((check) => check.status === "fail").map((check) => `${check.scope} ${check.name}`);
}

/**
 * Whether the report says bubblewrap does not work here, as on a machine without it: then that check
 * fails even with `isolation=none`, and doctor exits 1. Its first test proves the check itself.
 */
function bubblewrapFails(find: (scope: string, name: string) => DoctorCheck | undefined): boolean {
  const bubblewrap = find("local", "bubblewrap");
  assert.ok(bubblewrap, "the report has a bubblewrap check");
  if (process.env.SANDPORT_REQUIRE_BWRAP === "1") assert.equal(bubblewrap.status, "ok", bubblewrap.detail);
  return bubblewrap.status === "fail";
}

describe("sandport doctor", () => {
  const scratch = scratchDirectory("doctor");
  after(() => scratch.remove());
  const root = join(scratch.path, "root");

  test("reports a missing bubblewrap with the fix, and the launch that fails because of it (exit 1)", async () => {
    const missing = join(scratch.path, "no-such-bwrap");
    const { code, report, find } = await doctor([
      "--provider",
      "local",
      "--option",
      `bwrapPath=${missing}`,
      "--option",
      `root=${root}`,
    ]);
    assert.equal(code, EXIT.FAILED);
    assert.equal(report.ok, false);
    const bubblewrap = find("local", "bubblewrap");
    assert.equal(bubblewrap?.status, "fail");
    assert.equal(bubblewrap?.detail, `${missing}: not found`);
    assert.match(bubblewrap?.fix ?? "", /apt-get install bubblewrap/);
    assert.match(bubblewrap?.fix ?? "", /SANDPORT_LOCAL_BWRAP_PATH \(--option bwrapPath=PATH\)/);
    const launch = find("local", "launch");
    assert.equal(launch?.status, "fail");
    assert.match(launch?.detail ?? "", /bubblewrap cannot create namespaces here .*no-such-bwrap.*\[UNSUPPORTED\]/);
    // The runtime's own message names its constructor; the command names its own flag.
    assert.match(launch?.detail ?? "", /opt in to unisolated host processes with --option isolation=none \[/);
    assert.doesNotMatch(launch?.detail ?? "", /new LocalRuntime/);
  });

  test("the same report for people puts the fix under the failed check", async () => {
    const missing = join(scratch.path, "no-such-bwrap");
    const { code, stdout } = await runCli(["doctor", "--provider", "local", "--option", `bwrapPath=${missing}`]);
    assert.equal(code, EXIT.FAILED);
    assert.match(stdout, /✖ bubblewrap +.*no-such-bwrap: not found\n +fix: install bubblewrap/);
  });

  test("a working local runtime: host facts, and a throwaway sandbox launched and destroyed (exit 0)", async () => {
    const { code, report, find, stderr } = await doctor([
      "--provider",
      "local",
      "--option",
      `root=${root}`,
      "--option",
      "isolation=none",
    ]);
    // Without a working bubblewrap (the runtime's default isolation), that check alone fails.
    assert.deepEqual(failedChecks(report.checks), bubblewrapFails(find) ? ["local bubblewrap"] : []);
    assert.equal(code, bubblewrapFails(find) ? EXIT.FAILED : EXIT.OK, stderr);
    assert.equal(find("host", "node")?.status, "ok");
    for (const name of ["user", "user namespaces", "cgroups", "/dev/kvm"]) assert.ok(find("host", name), name);
    assert.equal(find("local", "launch")?.status, "ok");
    assert.equal(find("local", "adapter")?.detail.startsWith("@sandport/local@"), true);
  });

  test("says what it is checking on stderr, off a terminal too; the report alone is on stdout", async () => {
    const { stdout, stderr } = await runCli(["doctor", "--option", `root=${root}`, "--option", "isolation=none"]);
    assert.match(stderr, /^… checking the host$/m);
    assert.match(stderr, /^… checking local$/m);
    assert.match(stderr, /^… checking e2b$/m);
    assert.doesNotMatch(stdout, /…/);
    assert.match(stdout, /^host$/m);
  });

  test("Daytona's SDK, under either of its two package names, is one requirement", async () => {
    const { report } = await doctor(["--provider", "daytona"]);
    const sdkChecks = report.checks.filter((check) => check.scope === "daytona" && check.name.startsWith("sdk"));
    assert.equal(sdkChecks.length, 1, JSON.stringify(sdkChecks));
    assert.equal(sdkChecks[0]?.name, "sdk @daytona/sdk or @daytonaio/sdk");
    assert.equal(sdkChecks[0]?.status, "ok");
  });

  test("names credentials, present or missing, and never prints their values", async () => {
    const present = await doctor(["--provider", "e2b"], { SANDPORT_E2B_API_KEY: SECRET });
    assert.equal(present.code, EXIT.OK, present.stderr);
    assert.deepEqual(present.find("e2b", "credential"), {
      scope: "e2b",
      name: "credential",
      status: "ok",
      detail: "SANDPORT_E2B_API_KEY is set",
    });
    assert.equal(present.find("e2b", "sdk e2b")?.status, "ok");
    assert.ok(!`${present.stdout}${present.stderr}`.includes(SECRET));

    const absent = await doctor(["--provider", "e2b"]);
    assert.equal(absent.code, EXIT.FAILED, "asked for by name, a provider without credentials fails");
    assert.equal(absent.find("e2b", "credential")?.detail, "SANDPORT_E2B_API_KEY is not set");
    const all = await doctor(["--option", `root=${root}`, "--option", "isolation=none"]);
    assert.equal(all.find("e2b", "credential")?.status, "warn", "among all providers, a missing credential only warns");
    assert.deepEqual(failedChecks(all.report.checks), bubblewrapFails(all.find) ? ["local bubblewrap"] : []);
    assert.equal(all.code, bubblewrapFails(all.find) ? EXIT.FAILED : EXIT.OK, all.stderr);
  });
});
