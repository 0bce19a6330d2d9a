// `sandport run` as a child process, against the local runtime and the E2B emulator (through
// --endpoint): the command's exit code, output streamed as it comes, files in and out.
import assert from "node:assert/strict";
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { waitFor } from "@sandport/testkit/assertions";
import { EXIT } from "../exit-codes.js";
import { follow, localOptions, runCli, scratchDirectory, startCli, useE2BEmulator } from "../test-support.js";

describe("sandport run (local)", () => {
  const scratch = scratchDirectory("run");
  after(() => scratch.remove());
  const root = join(scratch.path, "root");
  const local = ["run", "--provider", "local", ...localOptions(root)];

  test("returns the command's exit code, and its output on the matching streams", async () => {
    const { code, stdout, stderr } = await runCli([...local, "--", "sh", "-c", "echo out; echo err >&2; exit 7"]);
    assert.equal(code, 7);
    assert.equal(stdout, "out\n");
    assert.equal(stderr, "err\n", "no progress on stderr when it is not a terminal");
    assert.equal((await runCli([...local, "--", "true"])).code, EXIT.OK);
  });

  test("streams output as it comes: the first line arrives while the command still waits for the test", async () => {
    const child = startCli([
      ...local,
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
    const [sandbox] = readdirSync(root).filter((name) => existsSync(join(root, name, "workspace")));
    assert.ok(sandbox, "the sandbox's directory");
    writeFileSync(join(root, sandbox, "workspace", "go"), "");
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
  });

  test("Sandport's own failures are 125, never a code the command could have returned", async () => {
    assert.equal((await runCli(["run", "--provider", "nimbus", "--", "true"])).code, EXIT.RUN_FAILED);
    assert.equal((await runCli(["run", "--", "true"])).code, EXIT.RUN_FAILED, "no --provider");
    const badFile = await runCli([...local, "--file", join(scratch.path, "absent"), "--", "true"]);
    assert.equal(badFile.code, EXIT.RUN_FAILED);
    assert.match(badFile.stderr, /--file .*absent: .*ENOENT/);
    const missing = await runCli([...local, "--collect", "nothing-here.txt", "--", "true"]);
    assert.equal(missing.code, EXIT.RUN_FAILED);
    assert.match(missing.stderr, /failed during collect.*\[NOT_FOUND\]/);
    assert.deepEqual(
      readdirSync(root).filter((name) => existsSync(join(root, name, "workspace"))),
      [],
      "every sandbox was torn down",
    );
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
