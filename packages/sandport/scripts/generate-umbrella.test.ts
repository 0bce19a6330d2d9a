import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const umbrella = fileURLToPath(new URL("..", import.meta.url));
const packages = fileURLToPath(new URL("../..", import.meta.url));

test("the umbrella's generated barrels and exports match packages/", () => {
  const run = spawnSync(process.execPath, ["scripts/generate-umbrella.mjs", "--check"], {
    cwd: umbrella,
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
});

test("every public @sandport package has exactly one umbrella subpath, and the root is core", () => {
  const manifest = JSON.parse(readFileSync(`${umbrella}/package.json`, "utf8"));
  const names = readdirSync(packages)
    .filter((dir) => dir !== "sandport")
    .map((dir) => JSON.parse(readFileSync(`${packages}/${dir}/package.json`, "utf8")))
    .filter((pkg) => !pkg.private)
    .map((pkg) => pkg.name.replace("@sandport/", "./"));
  const subpaths = Object.keys(manifest.exports).filter((key) => key !== "." && key !== "./package.json");
  assert.deepEqual(subpaths.sort(), names.sort());
  assert.match(readFileSync(`${umbrella}/src/index.ts`, "utf8"), /export \* from "@sandport\/core";/);
});

test("the generated manifest keeps the command: its bin and its third-party dependencies", () => {
  const manifest = JSON.parse(readFileSync(`${umbrella}/package.json`, "utf8"));
  assert.deepEqual(manifest.bin, { sandport: "./dist/cli.js" });
  const thirdParty = Object.keys(manifest.dependencies).filter((name: string) => !name.startsWith("@sandport/"));
  assert.deepEqual(thirdParty, ["commander", "picocolors"]);
});
