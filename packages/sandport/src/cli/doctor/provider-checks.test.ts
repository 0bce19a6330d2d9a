// The doctor's SDK checks against package layouts written to disk: an adapter whose SDK is published under
// two names (Daytona's) is satisfied by either, and reported as one requirement.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { scratchDirectory, UMBRELLA } from "../cli.fixture.js";
import { Redactor } from "../output/redactor.js";
import { parseDescriptor } from "../providers/descriptor.js";
import { providerChecks } from "./provider-checks.js";

/** Daytona's real package.json: its peer dependencies and its "sandport" descriptor. */
const daytona = JSON.parse(readFileSync(join(UMBRELLA, "..", "daytona", "package.json"), "utf8"));

describe("doctor: an SDK under either of two names", () => {
  const scratch = scratchDirectory("provider-checks");
  after(() => scratch.remove());

  /** The SDK checks for a Daytona adapter installed beside exactly `installed` (name → version). */
  async function sdkChecks(layout: string, installed: Record<string, string>) {
    const project = join(scratch.path, layout);
    const adapter = join(project, "node_modules", "@sandport", "daytona");
    mkdirSync(adapter, { recursive: true });
    writeFileSync(join(adapter, "package.json"), JSON.stringify(daytona));
    for (const [name, version] of Object.entries(installed)) {
      mkdirSync(join(project, "node_modules", name), { recursive: true });
      writeFileSync(join(project, "node_modules", name, "package.json"), JSON.stringify({ name, version }));
    }
    const descriptor = parseDescriptor(daytona, join(adapter, "package.json"));
    assert.ok(descriptor);
    const checks = await providerChecks({ descriptor, settings: { env: {} }, redactor: new Redactor(), strict: true });
    return checks.filter((check) => check.name.startsWith("sdk"));
  }

  test("the old name alone satisfies it", async () => {
    const checks = await sdkChecks("old-name", { "@daytonaio/sdk": "0.200.0" });
    assert.deepEqual(checks, [
      {
        scope: "daytona",
        name: "sdk @daytona/sdk or @daytonaio/sdk",
        status: "ok",
        detail: "@daytonaio/sdk 0.200.0",
      },
    ]);
  });

  test("the new name alone satisfies it", async () => {
    const checks = await sdkChecks("new-name", { "@daytona/sdk": "0.216.0" });
    assert.deepEqual(
      checks.map((check) => [check.status, check.detail]),
      [["ok", "@daytona/sdk 0.216.0"]],
    );
  });

  test("with both, the one the adapter loads first is the one reported", async () => {
    const checks = await sdkChecks("both", { "@daytona/sdk": "0.216.0", "@daytonaio/sdk": "0.218.0" });
    assert.deepEqual(
      checks.map((check) => [check.status, check.detail]),
      [["ok", "@daytona/sdk 0.216.0"]],
    );
  });

  test("with neither, one failure whose fix installs the preferred name", async () => {
    const checks = await sdkChecks("neither", {});
    assert.equal(checks.length, 1);
    assert.equal(checks[0]?.status, "fail");
    assert.equal(checks[0]?.detail, "neither is installed");
    assert.equal(checks[0]?.fix, 'npm install @daytona/sdk@">=0.180.0 <1"');
  });

  test("an installed version outside the range fails, naming the package", async () => {
    const checks = await sdkChecks("too-old", { "@daytonaio/sdk": "0.150.0" });
    assert.equal(checks.length, 1);
    assert.equal(checks[0]?.status, "fail");
    assert.equal(checks[0]?.detail, "@daytonaio/sdk 0.150.0 is outside >=0.180.0 <1");
  });
});
