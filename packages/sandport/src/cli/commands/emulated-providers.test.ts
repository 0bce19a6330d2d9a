// Every remote provider's descriptor drives a real workload: `sandport run` as a child process
// against the Freestyle, Modal, Agent37 and AgentCore emulators, reached through --endpoint with the credentials in the
// variables the descriptors name. (E2B is covered command by command in the other files.)
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Agent37Emulator, startAgent37Emulator } from "@sandport/testkit/emulators/agent37";
import { type AgentCoreEmulator, startAgentCoreEmulator } from "@sandport/testkit/emulators/agentcore";
import { type FreestyleEmulator, startFreestyleEmulator } from "@sandport/testkit/emulators/freestyle";
import {
  type KubernetesEmulator,
  kubernetesEmulatorSkipReason,
  startKubernetesEmulator,
} from "@sandport/testkit/emulators/kubernetes";
import { type ModalEmulator, startModalEmulator } from "@sandport/testkit/emulators/modal";
import { runCli } from "../cli.fixture.js";
import { EXIT } from "../exit-codes.js";

const kubernetesSkip = await kubernetesEmulatorSkipReason();
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

describe("sandport run (AgentCore emulator)", () => {
  let emulator: AgentCoreEmulator;
  before(async () => {
    emulator = await startAgentCoreEmulator();
  });
  after(() => emulator.stop());

  test("runs the command with the region and key pair from the SANDPORT_AGENTCORE_* variables, and exits with its code", async () => {
    const args = ["run", "--quiet", "--provider", "agentcore", "--endpoint", emulator.endpoint];
    const options = ["--option", `workingDirectory=${emulator.workingDirectory}`];
    const { code, stdout, stderr } = await runCli([...args, ...options, "--env", "GREETING=hi", ...WORKLOAD], {
      env: {
        SANDPORT_AGENTCORE_REGION: emulator.region,
        SANDPORT_AGENTCORE_ACCESS_KEY_ID: "AKIDCLITEST",
        SANDPORT_AGENTCORE_SECRET_ACCESS_KEY: "cli-test",
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      },
    });
    assert.equal(code, 5, stderr);
    assert.equal(stdout, "hi\n");
    assert.equal(stderr, "err\n");
    assert.deepEqual(emulator.liveSandboxes(), [], "the session was stopped");
    assert.ok(
      emulator.requests.every((request) => /Credential=AKIDCLITEST\//.test(request.headers.authorization ?? "")),
    );
  });
});

describe("sandport run (Kubernetes emulator)", { skip: kubernetesSkip }, () => {
  let emulator: KubernetesEmulator;
  before(async () => {
    emulator = await startKubernetesEmulator();
  });
  after(() => emulator.stop());

  test("claims a sandbox with the server, token, pool and router from SANDPORT_KUBERNETES_*, streams its output, exits with its code and deletes the claim", async () => {
    const args = ["run", "--quiet", "--provider", "kubernetes", "--endpoint", emulator.apiServerUrl];
    const { code, stdout, stderr } = await runCli([...args, "--env", "GREETING=hi", ...WORKLOAD], {
      env: {
        SANDPORT_KUBERNETES_TOKEN: emulator.token,
        SANDPORT_KUBERNETES_WARM_POOL: "sandboxd-pool",
        SANDPORT_KUBERNETES_ROUTER_URL: emulator.routerUrl,
      },
    });
    assert.equal(code, 5, stderr);
    assert.equal(stdout, "hi\n");
    assert.equal(stderr, "err\n");
    const claims = await fetch(
      `${emulator.apiServerUrl}/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/${emulator.namespace}/sandboxclaims`,
      { headers: { authorization: `Bearer ${emulator.token}` } },
    ).then((response) => response.json() as Promise<{ items: unknown[] }>);
    assert.deepEqual(claims.items, [], "the claim was deleted");
  });
});
