// `sandport run` as a child process, against the local runtime and the E2B emulator (through
// --endpoint): the command's exit code, output streamed as it comes, files in and out.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { waitFor } from "@sandport/testkit/assertions";
import {
  CLI,
  cliEnvironment,
  follow,
  localOptions,
  runCli,
  scratchDirectory,
  startCli,
  useE2BEmulator,
} from "../cli.fixture.js";
import { EXIT } from "../exit-codes.js";

describe("sandport run (local)", () => {
  const scratch = scratchDirectory("run");
  after(() => scratch.remove());
  const root = join(scratch.path, "root");
  const local = ["run", "--provider", "local", ...localOptions(root)];

  test("returns the command's exit code, and its output on the matching streams", async () => {
    const { code, stdout, stderr } = await runCli([
      ...local,
      "--quiet",
      "--",
      "sh",
      "-c",
      "echo out; echo err >&2; exit 7",
    ]);
    assert.equal(code, 7);
    assert.equal(stdout, "out\n");
    assert.equal(stderr, "err\n", "--quiet: no progress on stderr");
    assert.equal((await runCli([...local, "--", "true"])).code, EXIT.OK);
  });

  test("off a terminal, says what it is doing on stderr, one line per step; stdout is the command's alone", async () => {
    const { code, stdout, stderr } = await runCli([...local, "--", "sh", "-c", "echo out; echo err >&2; exit 7"]);
    assert.equal(code, 7);
    assert.equal(stdout, "out\n");
    const lines = stderr.split("\n");
    const at = (pattern: RegExp) => {
      const index = lines.findIndex((line) => pattern.test(line));
      assert.ok(index >= 0, `${pattern} in:\n${stderr}`);
      return index;
    };
    const order = [
      at(/^… launching a local sandbox$/),
      at(/^✔ sandbox sbx-\S+ launched \(/),
      at(/^err$/),
      at(/^✔ exited 7 after /),
      at(/^… collecting and tearing down$/),
      at(/^✔ sandbox sbx-\S+ destroyed$/),
      at(/^✔ usage: \S+ of sandbox, 1 command \(\S+\), 0 B in, 8 B out$/),
    ];
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
      "in the order the steps happened",
    );
    assert.equal(new Set(lines).size, lines.length, "each line once");
  });

  test("streams output as it comes: the first line arrives while the command still waits for the test", async () => {
    const child = startCli([
      ...local,
      "--quiet",
      "--timeout",
      "60s",
      "--",
      "sh",
      "-c",
      "echo first; echo first-err >&2; while [ ! -e go ]; do sleep 0.02; done; echo second",
    ]);
    const output = follow(child);
    await waitFor(() => output.stdout === "first\n" && output.stderr === "first-err\n", {
      timeoutMs: 30_000,
      what: "the first lines, before the command may finish",
    });
    // The command cannot print "second" or exit until the file exists, and the test creates it only now.
    const [sandbox] = sandboxesIn(root);
    assert.ok(sandbox, "the sandbox's directory");
    // Where the runtime bounds the workspace's disk (its default, as root), the workspace is on the image under disk/.
    const bounded = join(root, sandbox, "disk", "workspace");
    writeFileSync(join(existsSync(bounded) ? bounded : join(root, sandbox, "workspace"), "go"), "");
    const { code, stdout } = await output.closed;
    assert.equal(code, 0);
    assert.equal(stdout, "first\nsecond\n");
  });

  test("writes --file in (keeping the mode), passes --env, and collects --collect out, also after a failure", async () => {
    const script = join(scratch.path, "job.sh");
    writeFileSync(script, 'echo "$GREETING" > app/report.txt; echo done; exit 3\n');
    chmodSync(script, 0o755);
    const collected = join(scratch.path, "out", "report.txt");
    const { code, stdout, stderr } = await runCli(
      [
        ...local,
        "--file",
        `${script}:app/job.sh`,
        "--env",
        "GREETING=hello=world",
        "--collect",
        `app/report.txt:${collected}`,
        "--",
        "./app/job.sh",
      ],
      { cwd: scratch.path },
    );
    assert.equal(code, 3, stderr);
    assert.equal(stdout, "done\n");
    assert.equal(readFileSync(collected, "utf8"), "hello=world\n");
  });

  test("a command past --timeout is killed: exit 124", async () => {
    const { code, stderr } = await runCli([...local, "--timeout", "300ms", "--", "sleep", "30"]);
    assert.equal(code, EXIT.RUN_TIMEOUT);
    assert.match(stderr, /ran past --timeout 300ms/);
  });

  test("--json prints one result instead of streaming", async () => {
    const { code, stdout } = await runCli([...local, "--json", "--", "sh", "-c", "echo hi; exit 2"]);
    assert.equal(code, 2);
    const result = JSON.parse(stdout);
    assert.equal(result.exitCode, 2);
    assert.equal(result.stdout, "hi\n");
    assert.equal(result.teardown, "destroyed");
    assert.equal(result.usage.end, "destroyed");
    assert.equal(result.usage.sandboxId, result.sandboxId);
    assert.deepEqual([result.usage.execs.count, result.usage.bytesOut.output], [1, 3]);
    assert.equal(result.usage.estimate, undefined, "no --prices, no estimate");
  });

  test("--prices: the usage has an estimate from the caller's table, in its currency; a bad table is a usage error", async () => {
    const prices = join(scratch.path, "prices.json");
    writeFileSync(prices, JSON.stringify({ currency: "credits", providers: { local: { sandboxSecond: 1000 } } }));
    const input = join(scratch.path, "input.txt");
    writeFileSync(input, "12345");
    const priced = await runCli([...local, "--prices", prices, "--file", input, "--", "cat", "input.txt"]);
    assert.equal(priced.code, EXIT.OK, priced.stderr);
    assert.match(priced.stderr, /^✔ usage: \S+ of sandbox, 1 command \(\S+\), 5 B in, 5 B out, estimate \S+ credits$/m);
    const json = await runCli([...local, "--prices", prices, "--json", "--", "true"]);
    const { usage } = JSON.parse(json.stdout);
    assert.equal(usage.estimate.currency, "credits");
    assert.deepEqual(
      usage.estimate.lines.map((line: { price: string }) => line.price),
      ["sandboxSecond"],
    );
    assert.equal(usage.estimate.total, usage.sandboxSeconds * 1000);
    writeFileSync(prices, JSON.stringify({ currency: "credits", providers: { local: { perSecond: 1 } } }));
    const bad = await runCli([...local, "--prices", prices, "--", "true"]);
    assert.equal(bad.code, EXIT.USAGE);
    assert.match(bad.stderr, /--prices .*prices\.json: .*unknown key "perSecond"/);
  });

  test("a bad command line is a usage error (2), like every command's: nothing was launched", async () => {
    const badFile = await runCli([...local, "--file", join(scratch.path, "absent"), "--", "true"]);
    assert.equal(badFile.code, EXIT.USAGE);
    assert.match(badFile.stderr, /--file .*absent: .*ENOENT/);
    assert.match(badFile.stderr, /^Usage: sandport run \[options\] <command\.\.\.>/m);
    const badLabel = await runCli([...local, "--label", "BAD!=x", "--", "true"]);
    assert.equal(badLabel.code, EXIT.USAGE, badLabel.stderr);
    assert.match(badLabel.stderr, /labels key "BAD!" is not a valid label key \[INVALID_REQUEST\]/);
    assert.deepEqual(sandboxesIn(root), [], "nothing was left behind");
  });

  test("hints name the command line's syntax (--option key=value), not the runtime's constructor", async () => {
    const file = join(scratch.path, "a-file");
    writeFileSync(file, "");
    const unwritable = await runCli(["run", "--provider", "local", ...localOptions(join(file, "root")), "--", "true"]);
    assert.equal(unwritable.code, EXIT.RUN_FAILED);
    assert.match(
      unwritable.stderr,
      /cannot create the sandbox root .*: choose a writable directory with --option root=/,
    );
    const refused = await runCli([...local, "--option", "killGraceMs=-5", "--", "true"]);
    assert.equal(refused.code, EXIT.USAGE);
    assert.match(refused.stderr, /--option killGraceMs \(SANDPORT_LOCAL_KILL_GRACE_MS\) must be an integer/);
    for (const { stderr } of [unwritable, refused]) assert.doesNotMatch(stderr, /new LocalRuntime|LocalRuntime option/);
  });

  test("Sandport's own failures after the launch are 125, never a code the command could have returned", async () => {
    const missing = await runCli([...local, "--collect", "nothing-here.txt", "--", "true"]);
    assert.equal(missing.code, EXIT.RUN_FAILED);
    assert.match(missing.stderr, /failed during collect.*\[NOT_FOUND\]/);
    assert.deepEqual(sandboxesIn(root), [], "every sandbox was torn down");
  });
});

describe("sandport run: a program that does not exist", () => {
  const scratch = scratchDirectory("run-missing");
  after(() => scratch.remove());
  const root = join(scratch.path, "root");

  /** What is streamed to stderr (progress lines aside) and what the `--json` result says, for the same run. */
  async function both(options: readonly string[]) {
    const args = ["run", "--provider", "local", ...options, "--"];
    const streamed = await runCli([...args, "no-such-program-xyz", "arg"]);
    const result = await runCli([...args.slice(0, -1), "--json", "--", "no-such-program-xyz", "arg"]);
    return { streamed, result: JSON.parse(result.stdout) as { exitCode: number; stderr: string } };
  }

  test("unisolated: the streamed stderr says what the result says, with the same exit code (127)", async () => {
    const { streamed, result } = await both([...localOptions(root), "--quiet"]);
    assert.equal(result.exitCode, 127);
    assert.equal(streamed.code, 127);
    assert.match(result.stderr, /no-such-program-xyz/);
    assert.equal(streamed.stderr, result.stderr);
  });

  test("isolated: the streamed stderr says the program is not found inside the sandbox, and how to mount it (CLI syntax)", {
    skip: bubblewrapWorks() ? false : "bubblewrap cannot create namespaces on this machine",
  }, async () => {
    const { streamed, result } = await both(["--option", `root=${root}`, "--quiet"]);
    assert.equal(result.exitCode, 127);
    assert.equal(streamed.code, 127);
    assert.match(result.stderr, /no-such-program-xyz: not found inside the sandbox/);
    assert.ok(streamed.stderr.endsWith(result.stderr), `streamed:\n${streamed.stderr}\nresult:\n${result.stderr}`);
    for (const text of [streamed.stderr, result.stderr]) {
      assert.match(text, /--option readOnlyPaths=\/opt\/tool/);
      assert.doesNotMatch(text, /new LocalRuntime/);
    }
  });
});

describe("sandport run (E2B emulator)", () => {
  const fixture = useE2BEmulator("run-e2b");

  test("runs through the real e2b SDK with the endpoint override: exit code, files in and out, nothing left", async () => {
    const emulator = fixture.emulator();
    writeFileSync(join(fixture.scratch, "in.txt"), "from the host\n");
    const { code, stdout, stderr } = await runCli(
      [
        "run",
        "--provider",
        "e2b",
        "--endpoint",
        emulator.url,
        "--file",
        "in.txt",
        "--collect",
        "copy.txt",
        "--",
        "sh",
        "-c",
        "cat in.txt; cp in.txt copy.txt; exit 5",
      ],
      { cwd: fixture.scratch, env: fixture.env() },
    );
    assert.equal(code, 5, stderr);
    assert.equal(stdout, "from the host\n");
    assert.equal(readFileSync(join(fixture.scratch, "copy.txt"), "utf8"), "from the host\n");
    assert.deepEqual(emulator.liveSandboxes(), []);
    assert.ok(!`${stdout}${stderr}`.includes(emulator.apiKey));
  });

  test("without its credential, nothing is sent and the run fails 125 naming the variable", async () => {
    const emulator = fixture.emulator();
    emulator.resetRequests();
    const { code, stderr } = await runCli(["run", "--provider", "e2b", "--endpoint", emulator.url, "--", "true"]);
    assert.equal(code, EXIT.RUN_FAILED);
    assert.match(stderr, /e2b: skipped, SANDPORT_E2B_API_KEY not set/);
    assert.equal(emulator.countRequests(), 0);
  });

  test("a rejected credential is a provider failure, reported without the key", async () => {
    const emulator = fixture.emulator();
    const wrong = "e2b_wrong_key_0123456789abcdef";
    const { code, stderr } = await runCli(["run", "--provider", "e2b", "--endpoint", emulator.url, "--", "true"], {
      env: { SANDPORT_E2B_API_KEY: wrong },
    });
    assert.equal(code, EXIT.RUN_FAILED);
    assert.match(stderr, /\[AUTH\]/);
    assert.ok(!stderr.includes(wrong));
  });
});

/** Whether the local runtime can isolate here: `doctor` launches a throwaway sandbox under namespaces. */
function bubblewrapWorks(): boolean {
  const scratch = scratchDirectory("run-bwrap");
  try {
    const doctor = spawnSync(
      process.execPath,
      [CLI, "doctor", "--provider", "local", "--option", `root=${join(scratch.path, "root")}`, "--json"],
      {
        encoding: "utf8",
        env: cliEnvironment(),
      },
    );
    const report = JSON.parse(doctor.stdout) as { checks: { scope: string; name: string; status: string }[] };
    return report.checks.some((check) => check.scope === "local" && check.name === "launch" && check.status === "ok");
  } finally {
    scratch.remove();
  }
}

/** The sandbox directories under a local root: each holds its record, whether its workspace is bounded or not. */
function sandboxesIn(root: string): string[] {
  return readdirSync(root).filter((name) => existsSync(join(root, name, "sandbox.json")));
}
