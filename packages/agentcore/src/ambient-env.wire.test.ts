// Every source the AWS SDK reads by itself is planted in a child process: the
// AWS_* credential, region, endpoint, retry, defaults-mode, FIPS and dual-stack
// variables; AWS_PROFILE, AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE
// naming a profile whose credential_process is a tripwire script, whose
// endpoint_url and region point elsewhere, with an SSO section and a web
// identity token file; the container and instance metadata endpoints pointing
// at a tripwire server. A whole workload through AgentCoreRuntime must read
// none of those files (a spy on the child's file system records every access
// under the trap directory), start no credential process, send nothing to the
// tripwire, and sign every request with the configured key for the configured
// region. The same child then shows the traps are armed: a client left to the
// SDK's defaults reads them and goes to the tripwire.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { startAgentCoreEmulator } from "@sandport/testkit/emulators/agentcore";
import { emulatorOptions } from "../test/emulated.js";

const CANARY_KEY = "AKIDCANARYFROMENV000";
const PROFILE_KEY = "AKIDCANARYFROMFILE00";

test("no AWS variable, profile file, credential process or metadata endpoint is read or reached", async () => {
  const tripped: string[] = [];
  const tripwire = createServer((request, response) => {
    tripped.push(`${request.method} ${request.url} ${request.headers.authorization ?? ""}`);
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => tripwire.listen(0, "127.0.0.1", resolve));
  const tripwireUrl = `http://127.0.0.1:${(tripwire.address() as AddressInfo).port}`;
  const trapRoot = await mkdtemp(join(tmpdir(), "sandport-agentcore-ambient-"));
  const home = join(trapRoot, "home");
  const marker = join(trapRoot, "credential-process-ran");
  const process_ = join(trapRoot, "credential-process.sh");
  await mkdir(join(home, ".aws", "sso", "cache"), { recursive: true });
  await writeFile(
    process_,
    `#!/bin/sh\necho ran >> '${marker}'\necho '{"Version":1,"AccessKeyId":"${PROFILE_KEY}","SecretAccessKey":"s"}'\n`,
  );
  await chmod(process_, 0o755);
  const config = [
    "[default]",
    "region = eu-west-9",
    `credential_process = ${process_}`,
    "[profile trap]",
    "region = eu-west-9",
    `credential_process = ${process_}`,
    `endpoint_url = ${tripwireUrl}`,
    "max_attempts = 9",
    "retry_mode = adaptive",
    "defaults_mode = auto",
    "use_fips_endpoint = true",
    "disable_clock_skew_correction = true",
    "sso_start_url = https://example.invalid/start",
    "",
  ].join("\n");
  // The trap profile has no keys of its own, so the SDK runs its credential_process.
  const credentials = `[default]\naws_access_key_id = ${PROFILE_KEY}\naws_secret_access_key = s\n`;
  await writeFile(join(home, ".aws", "config"), config);
  await writeFile(join(home, ".aws", "credentials"), credentials);
  await writeFile(join(trapRoot, "config"), config);
  await writeFile(join(trapRoot, "credentials"), credentials);
  await writeFile(join(trapRoot, "web-identity-token"), "token");
  const emulator = await startAgentCoreEmulator();
  try {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      AWS_ACCESS_KEY_ID: CANARY_KEY,
      AWS_SECRET_ACCESS_KEY: "canary-secret",
      AWS_SESSION_TOKEN: "canary-session-token",
      AWS_PROFILE: "trap",
      AWS_CONFIG_FILE: join(trapRoot, "config"),
      AWS_SHARED_CREDENTIALS_FILE: join(trapRoot, "credentials"),
      AWS_REGION: "eu-west-9",
      AWS_DEFAULT_REGION: "eu-west-9",
      AWS_ENDPOINT_URL: tripwireUrl,
      AWS_ENDPOINT_URL_BEDROCK_AGENTCORE: tripwireUrl,
      AWS_MAX_ATTEMPTS: "9",
      AWS_RETRY_MODE: "adaptive",
      AWS_DEFAULTS_MODE: "auto",
      AWS_USE_FIPS_ENDPOINT: "true",
      AWS_USE_DUALSTACK_ENDPOINT: "true",
      AWS_DISABLE_CLOCK_SKEW_CORRECTION: "true",
      AWS_CONTAINER_CREDENTIALS_FULL_URI: `${tripwireUrl}/container-credentials`,
      AWS_EC2_METADATA_SERVICE_ENDPOINT: tripwireUrl,
      AWS_WEB_IDENTITY_TOKEN_FILE: join(trapRoot, "web-identity-token"),
      AWS_ROLE_ARN: "arn:aws:iam::123456789012:role/canary",
    };
    const options = { ...emulatorOptions(emulator), owner: "ambient" };
    // Variables shadow the profile's keys, so the files are planted once more without them.
    const filesOnly = Object.fromEntries(
      Object.entries(env).filter(
        ([name]) => !/^AWS_(ACCESS|SECRET|SESSION|REGION|DEFAULT|ENDPOINT|MAX|RETRY|DEFAULTS|USE|DISABLE)/.test(name),
      ),
    );
    const run = async (mode: "workload" | "bare", childEnv: Record<string, string> = env) => {
      const child = spawn(
        process.execPath,
        [
          "--import",
          import.meta.resolve("tsx"),
          fileURLToPath(new URL("../test/ambient-workload.ts", import.meta.url)),
          JSON.stringify({ mode, trapRoot, options }),
        ],
        { env: childEnv, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      assert.equal(code, 0, `the ${mode} child failed: ${stderr}`);
      return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
        workload?: { stdout: string; read: string; found: number; reattached: boolean };
        outcome?: string;
        touched: string[];
      };
    };
    for (const childEnv of [env, filesOnly]) {
      const report = await run("workload", childEnv);
      assert.deepEqual(report.workload, { stdout: "a1\n", read: "a", found: 1, reattached: true });
      assert.deepEqual(report.touched, [], "the workload touched files under the trap directory");
    }
    assert.deepEqual(tripped, [], "the workload reached the tripwire");
    await assert.rejects(readFile(marker), { code: "ENOENT" }, "the workload ran credential_process");
    assert.ok(emulator.requests.length >= 8, `the workload made ${emulator.requests.length} requests`);
    for (const request of emulator.requests) {
      assert.match(
        request.headers.authorization ?? "",
        /^AWS4-HMAC-SHA256 Credential=AKIDSANDPORTTEST\/\d{8}\/us-east-1\/bedrock-agentcore\/aws4_request,/,
        `${request.route} is signed with the configured key and region`,
      );
      assert.equal(
        request.headers["x-amz-security-token"],
        undefined,
        `${request.route} carries no ambient session token`,
      );
    }
    assert.equal(emulator.liveSandboxes().length, 0);

    // The traps are armed: the SDK left to itself reads the profile, runs its
    // credential_process and sends to the endpoint the environment names.
    const bare = await run("bare");
    assert.ok(bare.touched.includes(join(trapRoot, "config")), `the bare client read ${bare.touched.join(", ")}`);
    assert.match(await readFile(marker, "utf8").catch(() => `not run (${bare.outcome})`), /ran/);
    // (`tripped` was asserted empty above, which narrowed its type; it has grown since.)
    const reached = tripped as string[];
    assert.ok(
      reached.some((line) => line.includes(`Credential=${PROFILE_KEY}/`)),
      `the bare client reached the tripwire with the credential process's key: ${reached.join("; ")}`,
    );
  } finally {
    await emulator.stop();
    await new Promise((resolve) => tripwire.close(resolve));
    await rm(trapRoot, { recursive: true, force: true });
  }
});
