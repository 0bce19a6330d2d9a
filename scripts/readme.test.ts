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
  assert.match(command, /pnpm(@[\d.]+)? test$/);
  const ciLines = readFileSync(`${root}/.ci/run`, "utf8").split("\n");
  assert.ok(ciLines.includes(command), `.ci/run must contain the line: ${command}`);
});

test(".ci/run runs the test command a second time with bubblewrap hidden, and compares the two runs", () => {
  const command = commandAfter("Run the tests:");
  const ci = readFileSync(`${root}/.ci/run`, "utf8");
  const runs = ci.split("\n").filter((line) => line.trim() === command);
  assert.equal(runs.length, 2, "the README's test command, with and without bubblewrap");
  const hidden = ci.slice(ci.lastIndexOf(command));
  assert.match(
    ci.slice(0, ci.lastIndexOf(command)),
    /unset SANDPORT_REQUIRE_BWRAP[\s\S]*mount --bind "\$1" \/usr\/bin\/bwrap/,
  );
  assert.match(hidden, /node scripts\/compare-outcomes\.mjs "[^"]+" "[^"]+"/);
});

test("the README's demo and test commands name scripts that exist", () => {
  const scripts = JSON.parse(readFileSync(`${root}/package.json`, "utf8")).scripts;
  for (const marker of ["Run the demo", "Run the tests:"]) {
    for (const [, script] of commandAfter(marker).matchAll(/pnpm(?:@[\d.]+)? (?:run )?([a-z:]+)\b/g)) {
      if (script === "install") continue;
      assert.ok(scripts[script as string], `package.json has no "${script}" script`);
    }
  }
});

test("the README's set-up commands need no global write and run the pnpm that package.json names", () => {
  const { packageManager } = JSON.parse(readFileSync(`${root}/package.json`, "utf8"));
  for (const marker of ["Run the demo", "Run the tests:"]) {
    const command = commandAfter(marker);
    // A non-root user with a system Node cannot write npm's global prefix: `npm i -g` fails there.
    assert.doesNotMatch(command, /(^|\s)(-g|--global|sudo)(\s|$)/, command);
    const steps = command.split(" && ");
    assert.ok(steps.length > 1, command);
    for (const step of steps) assert.ok(step.startsWith(`npx --yes ${packageManager} `), step);
  }
});

test("the README's capability table matches the code", () => {
  const run = spawnSync(process.execPath, ["scripts/capability-table.mjs", "--check"], { cwd: root, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
});
