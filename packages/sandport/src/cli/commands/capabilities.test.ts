// `sandport capabilities` as a child process: every provider without credentials, each cell marked,
// and evidence applied only for the same provider and adapter version.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { runCli, scratchDirectory, UMBRELLA } from "../cli.fixture.js";
import { EXIT } from "../exit-codes.js";

const e2bVersion = JSON.parse(readFileSync(join(UMBRELLA, "..", "e2b", "package.json"), "utf8")).version as string;
/** Every provider the umbrella depends on: the `@sandport/*` packages that describe a runtime for the CLI. */
const installed = Object.keys(
  (JSON.parse(readFileSync(join(UMBRELLA, "package.json"), "utf8")) as { dependencies: Record<string, string> })
    .dependencies,
)
  .filter((name) => name.startsWith("@sandport/"))
  .map((name) => name.slice("@sandport/".length))
  .filter((dir) => JSON.parse(readFileSync(join(UMBRELLA, "..", dir, "package.json"), "utf8")).sandport?.runtime)
  .sort();

/** A valid evidence record for e2b whose probes established `warmLease` and the `filesystem` mode. */
function record(version: string, provider = "e2b", endpoint: Record<string, string> = { kind: "default" }) {
  return {
    format: "sandport-evidence-v3",
    provider,
    endpoint,
    adapter: { package: `@sandport/${provider}`, version },
    sdks: { e2b: "2.51.0" },
    recordedAt: "2026-11-29T12:00:00Z",
    runId: `test-${version}`,
    conformance: { passed: 70, failed: 0, skipped: 7, failures: [] },
    probes: [
      { capability: "warmLease", outcome: "passed", value: true, durationMs: 31_000 },
      { capability: "filesystem", outcome: "passed", value: "persistent", durationMs: 900 },
      { capability: "lifecycle", outcome: "failed", reason: "PROVIDER_UNAVAILABLE: 500", durationMs: 40 },
    ],
    observed: { warmLease: true, filesystem: "persistent" },
  };
}

type Cells = Record<string, { value: unknown; mark: string; source: string; observedAt?: string[] }>;
interface Listing {
  providers: {
    provider: string;
    version: string;
    capabilities: Cells;
    warnings: { code: string; message: string }[];
  }[];
}

describe("sandport capabilities", () => {
  const scratch = scratchDirectory("capabilities");
  after(() => scratch.remove());

  test("says what it is inspecting on stderr, off a terminal too; the table alone is on stdout", async () => {
    const { code, stdout, stderr } = await runCli(["capabilities"]);
    assert.equal(code, EXIT.OK, stderr);
    for (const provider of installed) assert.match(stderr, new RegExp(`^… inspecting ${provider}$`, "m"));
    assert.match(stdout, /^capability +/);
    assert.doesNotMatch(stdout, /…/);
  });

  test("lists every provider without credentials, each cell marked structural, declared, observed or absent", async () => {
    const { code, stdout } = await runCli(["capabilities", "--json"]);
    assert.equal(code, EXIT.OK);
    const listing = JSON.parse(stdout) as Listing;
    assert.deepEqual(
      listing.providers.map((entry) => entry.provider),
      installed,
    );
    assert.ok(installed.includes("e2b") && installed.includes("local"));
    for (const entry of listing.providers) {
      assert.equal(entry.capabilities.reattach?.mark, "structural", `${entry.provider} was constructed and inspected`);
    }
    const find = (name: string) => listing.providers.find((entry) => entry.provider === name)!;
    const [e2b, local] = [find("e2b"), find("local")];
    assert.equal(e2b.version, e2bVersion);
    assert.deepEqual(e2b.capabilities.reattach, { value: true, mark: "structural", source: "structural" });
    assert.deepEqual(e2b.capabilities.verifiedCleanup, { value: true, mark: "declared", source: "declared" });
    assert.deepEqual(e2b.capabilities.warmLease, { value: "unknown", mark: "absent", source: "declared" });
    assert.deepEqual(e2b.capabilities.pty, { value: true, mark: "structural", source: "structural" });
    assert.deepEqual(local.capabilities.pty, { value: true, mark: "structural", source: "structural" });
    assert.deepEqual(e2b.capabilities.detachedLaunch, { value: "unsupported", mark: "absent", source: "structural" });
    assert.equal(local.capabilities.isolation?.value, "namespaces");
  });

  test("a provider option changes what is resolved (local's isolation)", async () => {
    const { code, stdout } = await runCli([
      "capabilities",
      "--provider",
      "local",
      "--option",
      "isolation=none",
      "--json",
    ]);
    assert.equal(code, EXIT.OK);
    assert.equal((JSON.parse(stdout) as Listing).providers[0]?.capabilities.isolation?.value, "none");
  });

  test("the table for people names each provider and marks each cell", async () => {
    const all = await runCli(["capabilities"]);
    assert.equal(all.code, EXIT.OK);
    assert.match(all.stdout, new RegExp(`^capability +${installed.map((name) => `${name} \\S+`).join(" +")}$`, "m"));
    const e2b = await runCli(["capabilities", "--provider", "e2b"]);
    assert.equal(e2b.code, EXIT.OK);
    assert.match(e2b.stdout, /^capability +e2b \S+$/m);
    assert.match(e2b.stdout, /^warmLease +unknown \(absent\)$/m);
    assert.match(e2b.stdout, /^reattach +yes \(structural\)$/m);
    const local = await runCli(["capabilities", "--provider", "local"]);
    assert.match(local.stdout, /^warmLease +yes \(declared\)$/m);
  });

  test("evidence for this adapter version promotes the unknown cells its probes passed, and nothing else", async () => {
    const file = join(scratch.path, "current.json");
    writeFileSync(file, JSON.stringify(record(e2bVersion)));
    const { code, stdout, stderr } = await runCli(["capabilities", "--provider", "e2b", "--evidence", file, "--json"]);
    assert.equal(code, EXIT.OK, stderr);
    const [e2b] = (JSON.parse(stdout) as Listing).providers;
    const observed = { mark: "observed", source: "observed", observedAt: ["default"] };
    assert.deepEqual(e2b?.capabilities.warmLease, { value: true, ...observed });
    assert.deepEqual(e2b?.capabilities.filesystem, { value: "persistent", ...observed });
    assert.deepEqual(e2b?.capabilities.lifecycle, { value: "unknown", mark: "absent", source: "declared" });
    assert.deepEqual(e2b?.warnings, []);
    const table = await runCli(["capabilities", "--provider", "e2b", "--evidence", file]);
    assert.match(table.stdout, /^warmLease +yes \(observed\)$/m);
  });

  test("evidence from a custom endpoint (an emulator) is never shown as live, unless named the real service", async () => {
    const file = join(scratch.path, "emulated.json");
    const url = "http://127.0.0.1:4010";
    writeFileSync(file, JSON.stringify(record(e2bVersion, "e2b", { kind: "custom", url })));
    const json = await runCli(["capabilities", "--provider", "e2b", "--evidence", file, "--json"]);
    assert.equal(json.code, EXIT.OK, json.stderr);
    const [e2b] = (JSON.parse(json.stdout) as Listing).providers;
    assert.deepEqual(e2b?.capabilities.warmLease, { value: "unknown", mark: "absent", source: "declared" });
    assert.deepEqual(
      e2b?.warnings.map((warning) => warning.code),
      ["EVIDENCE_CUSTOM_ENDPOINT"],
    );
    const table = await runCli(["capabilities", "--provider", "e2b", "--evidence", file]);
    assert.match(table.stdout, /^warmLease +unknown \(absent\)$/m);
    assert.doesNotMatch(table.stdout, /observed\)/);
    assert.match(
      table.stderr,
      /warning: evidence test-.* was gathered at http:\/\/127\.0\.0\.1:4010, not at the provider's default endpoint/,
    );

    const vouched = ["capabilities", "--provider", "e2b", "--evidence", file, "--live-endpoint", `${url}/`];
    const marked = await runCli(vouched);
    assert.equal(marked.code, EXIT.OK, marked.stderr);
    assert.match(marked.stdout, /^warmLease +yes \(observed, custom endpoint\)$/m);
    assert.match(marked.stdout, /observed, custom endpoint: evidence gathered at http:\/\/127\.0\.0\.1:4010,/);
    const [listed] = (JSON.parse((await runCli([...vouched, "--json"])).stdout) as Listing).providers;
    assert.deepEqual(listed?.capabilities.warmLease, {
      value: true,
      mark: "observed",
      source: "observed",
      observedAt: [url],
    });
  });

  test("a v2 record, which does not say where it was gathered, promotes nothing", async () => {
    const file = join(scratch.path, "v2.json");
    const { endpoint: _endpoint, ...old } = { ...record(e2bVersion), format: "sandport-evidence-v2" };
    writeFileSync(file, JSON.stringify(old));
    const { code, stdout } = await runCli(["capabilities", "--provider", "e2b", "--evidence", file, "--json"]);
    assert.equal(code, EXIT.OK);
    const [e2b] = (JSON.parse(stdout) as Listing).providers;
    assert.equal(e2b?.capabilities.warmLease?.value, "unknown");
    assert.deepEqual(
      e2b?.warnings.map((warning) => warning.code),
      ["EVIDENCE_ENDPOINT_UNRECORDED"],
    );
  });

  test("evidence for another adapter version or provider is ignored with a warning", async () => {
    const old = join(scratch.path, "old.json");
    const other = join(scratch.path, "other.json");
    writeFileSync(old, JSON.stringify(record("0.0.1")));
    writeFileSync(other, JSON.stringify(record(e2bVersion, "daytona")));
    const json = await runCli(["capabilities", "--provider", "e2b", "--evidence", old, "--evidence", other, "--json"]);
    assert.equal(json.code, EXIT.OK);
    const [e2b] = (JSON.parse(json.stdout) as Listing).providers;
    assert.equal(e2b?.capabilities.warmLease?.value, "unknown");
    assert.deepEqual(
      e2b?.warnings.map((warning) => warning.code),
      ["EVIDENCE_OTHER_VERSION", "EVIDENCE_OTHER_PROVIDER"],
    );
    const table = await runCli(["capabilities", "--provider", "e2b", "--evidence", old]);
    assert.match(table.stderr, /warning: evidence test-0\.0\.1 .* is for adapter version 0\.0\.1, not .*: ignored/);
  });

  test("an unreadable or malformed evidence file is a usage error (2)", async () => {
    const bad = join(scratch.path, "bad.json");
    writeFileSync(bad, JSON.stringify({ ...record(e2bVersion), observed: { warmLease: true } }));
    const malformed = await runCli(["capabilities", "--evidence", bad]);
    assert.equal(malformed.code, EXIT.USAGE);
    assert.match(
      malformed.stderr,
      /malformed evidence record: the passed probe of filesystem is missing from observed/,
    );
    const missing = await runCli(["capabilities", "--evidence", join(scratch.path, "absent.json")]);
    assert.equal(missing.code, EXIT.USAGE);
    assert.match(missing.stderr, /ENOENT.*\[UNREADABLE_FILE\]/);
  });
});
