// Nothing ambient: with VERCEL_OIDC_TOKEN, VERCEL_TOKEN, VERCEL_TEAM_ID, VERCEL_PROJECT_ID and
// VERCEL_URL set, a Vercel CLI auth.json in a temporary HOME and XDG_DATA_HOME, a linked
// .vercel/project.json, all pointing at a trap, and no terminal on stdin, a whole workload
// through VercelRuntime and the real SDK sends nothing to the trap, carries no canary,
// and never starts a login. The trap is armed: the SDK left to itself does read them.
// The workload runs in a child process (test/ambient-workload.ts), so that its environment,
// home directory, working directory and stdin are the trap's from its first line.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const CLI_TOKEN = "vca_cli_canary_0123456789";
const ENV_TOKEN = "vcp_env_canary_0123456789";

/** An unsigned JWT shaped like a Vercel OIDC token, for the canary team and project. */
function oidcToken(expiresAt: number): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const claims = { owner_id: "team_canary", project_id: "prj_canary", exp: Math.floor(expiresAt / 1000) };
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.canary`;
}

interface ChildReport {
  readonly stdinIsTTY: boolean;
  readonly results: Record<string, unknown>;
  readonly workload: { route: string; path: string; headers: Record<string, string> }[];
  readonly armed: { expired: string; fresh: string; requests: { path: string; headers: Record<string, string> }[] };
  readonly trapped: { phase: string; url: string; authorization: string | null }[];
  readonly unknown: string[];
}

test("no variable, file or terminal around the SDK is ever used, and no login is attempted", {
  timeout: 120_000,
}, async () => {
  const trapped: string[] = [];
  const trap = createServer((request: IncomingMessage, response) => {
    trapped.push(`${request.method} ${request.url} (authorization ${request.headers.authorization})`);
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
  const trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
  const home = await mkdtemp(join(tmpdir(), "sandport-vercel-ambient-"));
  try {
    const auth = JSON.stringify({ token: CLI_TOKEN, expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    for (const data of [join(home, ".local", "share"), join(home, "xdg")]) {
      await mkdir(join(data, "com.vercel.cli"), { recursive: true });
      await writeFile(join(data, "com.vercel.cli", "auth.json"), auth);
    }
    const project = join(home, "project");
    await mkdir(join(project, ".vercel"), { recursive: true });
    await writeFile(
      join(project, ".vercel", "project.json"),
      JSON.stringify({ projectId: "prj_canary", orgId: "team_canary" }),
    );
    const freshToken = oidcToken(Date.now() + 3_600_000);
    const canaries = {
      HOME: home,
      XDG_DATA_HOME: join(home, "xdg"),
      VERCEL_OIDC_TOKEN: oidcToken(Date.now() - 3_600_000),
      VERCEL_TOKEN: ENV_TOKEN,
      VERCEL_TEAM_ID: "team_canary",
      VERCEL_PROJECT_ID: "prj_canary",
      VERCEL_URL: trapUrl,
    };
    const child = spawn(
      process.execPath,
      ["--import", import.meta.resolve("tsx"), fileURLToPath(new URL("../test/ambient-workload.ts", import.meta.url))],
      {
        cwd: project,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          PATH: process.env.PATH,
          ...canaries,
          SANDPORT_TRAP_URL: trapUrl,
          SANDPORT_FRESH_OIDC_TOKEN: freshToken,
        },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on("exit", resolve));
    assert.equal(code, 0, `the workload failed:\n${stderr}`);
    const report = JSON.parse(stdout.trim().split("\n").at(-1) as string) as ChildReport;

    assert.equal(report.stdinIsTTY, false, "no terminal on stdin");
    assert.deepEqual(report.results, { cat: "a", async: "async\n", read: "a", found: 1, left: 0 });
    assert.deepEqual(report.unknown, []);
    assert.deepEqual(
      report.trapped.filter((entry) => entry.phase === "workload"),
      [],
      "the workload sent nothing past the emulator",
    );
    // Every step of the workload reached the emulator (how often a status is polled varies with timing).
    assert.deepEqual([...new Set(report.workload.map((request) => request.route))].sort(), [
      "DELETE /v2/sandboxes/:name",
      "GET /v2/sandboxes",
      "GET /v2/sandboxes/:name",
      "GET /v2/sandboxes/sessions/:sessionId/cmd/:cmdId",
      "GET /v2/sandboxes/sessions/:sessionId/cmd/:cmdId/logs",
      "POST /v2/sandboxes/sessions/:sessionId/cmd",
      "POST /v2/sandboxes/sessions/:sessionId/fs/read",
      "POST /v2/sandboxes/sessions/:sessionId/fs/write",
      "POST /v2/sandboxes/sessions/:sessionId/stop",
      "POST /v3/sandboxes",
    ]);
    // At least 20: one status poll (a launch is its create alone).
    assert.ok(report.workload.length >= 20, `the workload made ${report.workload.length} requests`);
    const canaryValues = [CLI_TOKEN, ENV_TOKEN, "team_canary", "prj_canary", trapUrl, canaries.VERCEL_OIDC_TOKEN];
    for (const request of report.workload) {
      for (const value of Object.values(request.headers)) {
        for (const canary of canaryValues) assert.ok(!value.includes(canary), `${request.route} carries ${canary}`);
      }
      for (const canary of canaryValues)
        assert.ok(!request.path.includes(canary), `${request.route} path carries ${canary}`);
      assert.match(request.headers.authorization ?? "", /^Bearer vcp_[0-9a-f]{40}$/, "the emulator's own token");
    }

    // Armed: left to itself, the SDK reads the expired OIDC token, refreshes it with the CLI's auth.json
    // through the global fetch (the trap), then sends a fresh token from the environment to the API.
    assert.deepEqual(
      report.trapped.map((entry) => [entry.phase, new URL(entry.url).host, entry.authorization]),
      [["armed", "api.vercel.com", `Bearer ${CLI_TOKEN}`]],
    );
    assert.match(report.trapped[0]?.url ?? "", /\/v1\/projects\/prj_canary\/token/);
    assert.equal(trapped.length, 1, "the trap server saw that one request");
    assert.match(report.armed.expired, /OidcContextError|OIDC/, "and, with no terminal, no login: an error");
    assert.deepEqual(
      report.armed.requests.map((request) => request.headers.authorization),
      [`Bearer ${freshToken}`],
    );
    assert.match(
      report.armed.requests[0]?.path ?? "",
      /teamId=team_canary/,
      "the fresh token's team, from the environment",
    );
    assert.match(report.armed.fresh, /403|forbidden|not ok/i);
    assert.ok(!/device|To authenticate, visit|browser/i.test(stdout + stderr), "no login was started");
  } finally {
    await rm(home, { recursive: true, force: true });
    await new Promise((resolve) => trap.close(resolve));
  }
});
