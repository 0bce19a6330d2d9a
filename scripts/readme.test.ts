// README.md must stay true: its commands are the ones CI runs, and its
// capability table is the one the code resolves.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(`${root}/README.md`, "utf8");

/** The first fenced `sh` block after the line containing `marker`. */
function commandAfter(marker: string): string {
  const at = readme.indexOf(marker);
  assert.ok(at >= 0, `README lacks "${marker}"`);
  const block = /```sh\n([^\n]+)\n```/.exec(readme.slice(at));
  assert.ok(block?.[1], `no command after "${marker}"`);
  return block[1];
}

test(".ci/run runs exactly the README's test command", () => {
  const command = commandAfter("Run the tests:");
  assert.match(command, /pnpm test$/);
  const ciLines = readFileSync(`${root}/.ci/run`, "utf8").split("\n");
  assert.ok(ciLines.includes(command), `.ci/run must contain the line: ${command}`);
});

test("the README's demo and test commands name scripts that exist", () => {
  const scripts = JSON.parse(readFileSync(`${root}/package.json`, "utf8")).scripts;
  for (const marker of ["Run the demo", "Run the tests:"]) {
    for (const [, script] of commandAfter(marker).matchAll(/pnpm (?:run )?([a-z:]+)\b/g)) {
      if (script === "install") continue;
      assert.ok(scripts[script as string], `package.json has no "${script}" script`);
    }
  }
});

test("the README's capability table matches the code", () => {
  const run = spawnSync(process.execPath, ["scripts/capability-table.mjs", "--check"], { cwd: root, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
});
