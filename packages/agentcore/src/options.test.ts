// Options: defaults, refusals, nothing from the environment, no I/O before
// the first call, and what a missing SDK turns into.
import assert from "node:assert/strict";
import { test } from "node:test";
import { expectCode } from "@sandport/testkit/assertions";
import { AgentCoreRuntime } from "./agentcore-runtime.js";
import { DEFAULT_AGENTCORE_TIMEOUTS, fromWorkingDirectory, resolveOptions } from "./options.js";

const REQUIRED = { region: "us-east-1", accessKeyId: "AKID", secretAccessKey: "secret" } as const;

test("region and credentials are required and never taken from AWS_* variables", async () => {
  const names = ["AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] as const;
  const saved = names.map((name) => process.env[name]);
  Object.assign(process.env, { AWS_REGION: "eu-west-1", AWS_ACCESS_KEY_ID: "AKIDENV", AWS_SECRET_ACCESS_KEY: "env" });
  try {
    for (const field of ["region", "accessKeyId", "secretAccessKey"] as const) {
      const { [field]: _left, ...rest } = REQUIRED;
      const refused = await expectCode(() => new AgentCoreRuntime(rest as never), "INVALID_REQUEST");
      assert.equal(refused.details.field, field);
    }
  } finally {
    names.forEach((name, index) => {
      if (saved[index] === undefined) delete process.env[name];
      else process.env[name] = saved[index];
    });
  }
});

test("defaults: the AWS-managed interpreter, the regional endpoint, explicit lifetime, budgets and deadlines", () => {
  const options = resolveOptions(REQUIRED);
  assert.equal(options.codeInterpreterId, "aws.codeinterpreter.v1");
  assert.equal(options.endpoint, "https://bedrock-agentcore.us-east-1.amazonaws.com");
  assert.deepEqual(
    [options.workingDirectory, options.workspaceRoot, options.stateDirectory],
    [
      "/opt/amazon/genesis1p-tools/var",
      "/opt/amazon/genesis1p-tools/var/workspace",
      "/opt/amazon/genesis1p-tools/var/.sandport",
    ],
  );
  assert.deepEqual([options.lifetimeMs, options.runBudgetMs, options.maxOutputBytes], [3_600_000, 300_000, 4 << 20]);
  assert.deepEqual([options.network, options.maxAttempts, options.listPageSize], [false, 3, 100]);
  assert.deepEqual(options.credentials, { accessKeyId: "AKID", secretAccessKey: "secret" });
  assert.deepEqual(options.timeouts, DEFAULT_AGENTCORE_TIMEOUTS);
  const moved = resolveOptions({ ...REQUIRED, workingDirectory: "/home/user", sessionToken: "token" });
  assert.deepEqual([moved.workspaceRoot, moved.stateDirectory], ["/home/user/workspace", "/home/user/.sandport"]);
  assert.equal(moved.credentials.sessionToken, "token");
});

test("out-of-range values are refused, naming the field and AgentCore's limit", async () => {
  const refusals: [Record<string, unknown>, string][] = [
    [{ runBudgetMs: 900_001 }, "runBudgetMs"],
    [{ lifetimeMs: 28_800_001 }, "lifetimeMs"],
    [{ region: "not a region" }, "region"],
    [{ codeInterpreterId: "../x" }, "codeInterpreterId"],
    [{ endpoint: "ftp://x" }, "endpoint"],
    [{ maxAttempts: 0 }, "maxAttempts"],
    [{ listPageSize: 101 }, "listPageSize"],
    [{ stateDirectory: "/opt/amazon/genesis1p-tools/var/workspace/state" }, "stateDirectory"],
  ];
  for (const [extra, field] of refusals) {
    const refused = await expectCode(() => new AgentCoreRuntime({ ...REQUIRED, ...extra } as never), "INVALID_REQUEST");
    assert.equal(refused.details.field, field, JSON.stringify(extra));
  }
});

test("paths inside commands are relative to the working directory, and never start with a dash", () => {
  const options = resolveOptions({ ...REQUIRED, workingDirectory: "/w" });
  assert.equal(fromWorkingDirectory(options, "/w"), ".");
  assert.equal(fromWorkingDirectory(options, "/w/-x"), "./-x");
  assert.equal(fromWorkingDirectory(options, "/elsewhere"), "../elsewhere");
});

test("construction does no I/O; a missing SDK is SDK_UNAVAILABLE at the first call, naming the package", async () => {
  const runtime = new AgentCoreRuntime({
    ...REQUIRED,
    endpoint: "http://127.0.0.1:9",
    sdk: () => Promise.reject(new Error("Cannot find module '@aws-sdk/client-bedrock-agentcore'")),
  });
  const failed = await expectCode(() => runtime.launch(), "SDK_UNAVAILABLE");
  assert.match(failed.message, /@aws-sdk\/client-bedrock-agentcore/);
});
