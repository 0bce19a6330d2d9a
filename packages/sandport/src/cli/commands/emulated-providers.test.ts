// Every remote provider's descriptor drives a real workload: `sandport run` as a child process
// against the Freestyle, Modal and Agent37 emulators, reached through --endpoint with the credentials in the
// variables the descriptors name. (E2B is covered command by command in the other files.)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Agent37Emulator, startAgent37Emulator } from "@sandport/testkit/emulators/agent37";
import { type FreestyleEmulator, startFreestyleEmulator } from "@sandport/testkit/emulators/freestyle";
import { type ModalEmulator, startModalEmulator } from "@sandport/testkit/emulators/modal";
import { runCli } from "../cli.fixture.js";
import { EXIT } from "../exit-codes.js";

const WORKLOAD = ["--", "sh", "-c", 'printf "%s\\n" "$GREETING" > note.txt; cat note.txt; echo err >&2; exit 5'];

describe("sandport run (Freestyle emulator)", () => {
  let emulator: FreestyleEmulator;
  // The emulator maps the VM's home directory, where the API starts commands, onto its backend.
  before(async () => {
    emulator = await startFreestyleEmulator({ workspaceDirectory: "/root" });
  });
  after(() => emulator.stop());

  test("runs the command with the credential from SANDPORT_FREESTYLE_API_KEY, prints the output it cannot stream, and exits with its code", async () => {
    // --quiet: the command's own output alone, without the progress lines.
    const args = [
      "run",
      "--quiet",
      "--provider",
      "freestyle",
      "--endpoint",
      emulator.baseUrl,
      "--option",
      "network=true",
    ];
    const { code, stdout, stderr } = await runCli([...args, "--env", "GREETING=hi", ...WORKLOAD], {
      env: { SANDPORT_FREESTYLE_API_KEY: emulator.apiKey },
    });
    assert.equal(code, 5, stderr);
    assert.equal(stdout, "hi\n");
    assert.equal(stderr, "err\n");
    assert.deepEqual(emulator.liveSandboxes(), [], "the VM was torn down");
  });

  test("without the credential a sweep is skipped with one line (3)", async () => {
    const { code, stderr } = await runCli(["sweep", "--provider", "freestyle", "--older-than", "1h"]);
    assert.equal(code, EXIT.NOT_CONFIGURED);
    assert.equal(stderr, "freestyle: skipped, SANDPORT_FREESTYLE_API_KEY not set\n");
  });
});

describe("sandport run (Modal emulator)", () => {
  let emulator: ModalEmulator;
  before(async () => {
    emulator = await startModalEmulator();
  });
  after(() => emulator.stop());

  test("runs the command with the token pair from the SANDPORT_MODAL_* variables, and exits with its code", async () => {
    const args = ["run", "--quiet", "--provider", "modal", "--endpoint", emulator.url];
    const options = ["--option", `workspaceRoot=${emulator.workspacePath}`, "--option", "tunnels=tcp"];
    const { code, stdout, stderr } = await runCli([...args, ...options, "--env", "GREETING=hi", ...WORKLOAD], {
      env: { SANDPORT_MODAL_TOKEN_ID: emulator.tokenId, SANDPORT_MODAL_TOKEN_SECRET: emulator.tokenSecret },
    });
    assert.equal(code, 5, stderr);
    assert.equal(stdout, "hi\n");
    assert.equal(stderr, "err\n");
    assert.deepEqual(emulator.liveSandboxes(), [], "the sandbox was torn down");
  });
});

describe("sandport run (Agent37 emulator)", () => {
  let emulator: Agent37Emulator;
  before(async () => {
    emulator = await startAgent37Emulator();
  });
  after(() => emulator.stop());

  test("runs the command with the key from SANDPORT_AGENT37_API_KEY, prints its buffered output, and exits with its code", async () => {
    const args = ["run", "--quiet", "--provider", "agent37", "--endpoint", emulator.baseUrl];
    const { code, stdout, stderr } = await runCli([...args, "--env", "GREETING=hi", ...WORKLOAD], {
      env: { SANDPORT_AGENT37_API_KEY: emulator.apiKey },
    });
    assert.equal(code, 5, stderr);
    assert.equal(stdout, "hi\n");
    assert.equal(stderr, "err\n");
    assert.deepEqual(emulator.liveSandboxes(), [], "the instance was deleted");
  });
});
