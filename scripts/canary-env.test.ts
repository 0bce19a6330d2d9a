// The canary workflow hands each provider's job only that provider's SANDPORT_<P>_* secrets.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./canary-env.mjs", import.meta.url));

function run(provider: string, secrets: Record<string, string>) {
  return spawnSync(process.execPath, [script], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, PROVIDER: provider, SECRETS: JSON.stringify(secrets) },
  });
}

test("prints only the provider's own SANDPORT_<P>_* secrets, in GITHUB_ENV's heredoc form", () => {
  const { status, stdout } = run("e2b", {
    SANDPORT_E2B_API_KEY: "key\nwith a newline",
    SANDPORT_E2B_DOMAIN: "e2b.app",
    SANDPORT_E2BX_API_KEY: "not this one",
    SANDPORT_DAYTONA_API_KEY: "nor this",
    GITHUB_TOKEN: "never",
  });
  assert.equal(status, 0);
  const entries = [...stdout.matchAll(/^([A-Z0-9_]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)].map((match) => [match[1], match[3]]);
  assert.deepEqual(entries, [
    ["SANDPORT_E2B_API_KEY", "key\nwith a newline"],
    ["SANDPORT_E2B_DOMAIN", "e2b.app"],
  ]);
  assert.ok(!stdout.includes("never") && !stdout.includes("nor this") && !stdout.includes("not this one"));
});

test("a provider without secrets gets nothing; a bad provider name is refused", () => {
  assert.equal(run("modal", { SANDPORT_E2B_API_KEY: "k" }).stdout, "");
  assert.equal(run("../x", {}).status, 2);
});
