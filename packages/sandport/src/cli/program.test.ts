// The command line itself: help on every command, usage errors, the documented exit codes.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { follow, runCli, startCli, UMBRELLA } from "./cli.fixture.js";
import { EXIT, EXIT_CODE_TABLE } from "./exit-codes.js";

const COMMANDS = ["doctor", "capabilities", "run", "canary", "sweep"];

describe("sandport", () => {
  test("--help lists every command and the exit codes, and exits 0", async () => {
    const { code, stdout } = await runCli(["--help"]);
    assert.equal(code, 0);
    for (const command of COMMANDS) assert.match(stdout, new RegExp(`^  ${command} `, "m"));
    for (const [exit] of EXIT_CODE_TABLE) assert.match(stdout, new RegExp(`^ +${exit}  `, "m"));
  });

  for (const command of COMMANDS) {
    test(`${command} --help describes its flags and exits 0`, async () => {
      const { code, stdout } = await runCli([command, "--help"]);
      assert.equal(code, 0);
      assert.match(stdout, new RegExp(`^Usage: sandport ${command} `, "m"));
      assert.match(stdout, /--provider <name>/);
    });
  }

  test("a reader that closed its end (| head) ends the command quietly", async () => {
    const child = startCli(["capabilities"]);
    // Closed before the command has started: its first write meets EPIPE.
    child.stdout?.destroy();
    const { code, stderr } = await follow(child).closed;
    assert.equal(code, EXIT.OK);
    // Its progress lines, and no error or stack trace.
    for (const line of stderr.split("\n").filter((text) => text !== "")) assert.match(line, /^… inspecting \S+$/);
  });

  test("--version prints the package's version", async () => {
    const { version } = JSON.parse(readFileSync(`${UMBRELLA}/package.json`, "utf8"));
    const { code, stdout } = await runCli(["--version"]);
    assert.equal(code, 0);
    assert.equal(stdout.trim(), version);
  });

  test("an unknown command or flag is a usage error (2)", async () => {
    assert.equal((await runCli(["teleport"])).code, EXIT.USAGE);
    const unknownFlag = await runCli(["capabilities", "--colour"]);
    assert.equal(unknownFlag.code, EXIT.USAGE);
    assert.match(unknownFlag.stderr, /unknown option '--colour'/);
  });

  test("an unknown command is a usage error (2) with the program's usage line", async () => {
    const { code, stdout, stderr } = await runCli(["teleport"]);
    assert.equal(code, EXIT.USAGE);
    assert.equal(stdout, "");
    assert.match(stderr, /unknown command 'teleport'/);
    assert.match(stderr, /^Usage: sandport \[options\] \[command\]/m);
  });

  // Unknown flag, missing value, bad value and a missing required flag, for every command: exit 2, nothing on
  // stdout, and the command's usage line on stderr. `run` too: nothing ran, so there is no command's code to return.
  const USAGE_ERRORS: Record<string, string[][]> = {
    doctor: [["--bogus"], ["--provider"], ["--provider", "nimbus"], ["--option", "bwrapPath"]],
    capabilities: [["--colour"], ["--evidence"], ["--provider", "nimbus"], ["--option", "warpDrive=on"]],
    run: [
      ["--provider", "local", "--bogus", "--", "true"],
      ["--provider", "local", "--timeout"],
      ["--provider", "local", "--timeout", "soon", "--", "true"],
      ["--provider", "local", "--env", "NOVALUE", "--", "true"],
      ["--", "true"],
      ["--provider", "local"],
    ],
    canary: [
      ["--provider", "local", "--bogus"],
      ["--provider", "local", "--idle"],
      ["--provider", "local", "--idle", "zz"],
      [],
    ],
    sweep: [
      ["--provider", "local", "--older-than", "1h", "--bogus"],
      ["--provider", "local", "--older-than"],
      ["--provider", "local", "--older-than", "zz"],
      ["--provider", "local"],
    ],
  };
  for (const [command, cases] of Object.entries(USAGE_ERRORS)) {
    test(`${command}: usage errors exit 2 with the usage line on stderr`, async () => {
      for (const args of cases) {
        const { code, stdout, stderr } = await runCli([command, ...args]);
        const shown = `sandport ${command} ${args.join(" ")}`;
        assert.equal(code, EXIT.USAGE, `${shown}: ${stderr}`);
        assert.equal(stdout, "", shown);
        assert.match(stderr, /^error: /m, shown);
        assert.match(stderr, new RegExp(`^Usage: sandport ${command} \\[options\\]`, "m"), shown);
      }
    });
  }

  test("a missing required flag is a usage error (2) naming it", async () => {
    const { code, stderr } = await runCli(["sweep", "--provider", "local"]);
    assert.equal(code, EXIT.USAGE);
    assert.match(stderr, /--older-than/);
  });

  test("an unknown provider is a usage error (2) listing the installed ones", async () => {
    const { code, stderr } = await runCli(["capabilities", "--provider", "nimbus"]);
    assert.equal(code, EXIT.USAGE);
    assert.match(
      stderr,
      /no provider "nimbus"; installed: (?:[a-z0-9-]+, )*e2b, (?:[a-z0-9-]+, )*local\b.* \[UNKNOWN_PROVIDER\]/,
    );
  });

  test("an --option no selected provider declares is a usage error (2)", async () => {
    const { code, stderr } = await runCli(["capabilities", "--option", "warpDrive=on"]);
    assert.equal(code, EXIT.USAGE);
    assert.match(stderr, /--option warpDrive: no selected provider declares it .*local\.root/);
  });

  test("the README's exit-code table is the one the command uses", () => {
    const readme = readFileSync(new URL("../../../../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("### Exit codes"));
    const documented = [...section.matchAll(/^\| `(\d+)` +\| (.+?) +\|$/gm)].map((match) => [
      Number(match[1]),
      match[2],
    ]);
    assert.deepEqual(documented, EXIT_CODE_TABLE);
  });
});
