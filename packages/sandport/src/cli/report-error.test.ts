// How a failed command reports its error, as a child process: with `--json`, one JSON object on stdout
// that names the code, the message and the exit code, which is the same as without `--json`.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname } from "node:path";
import { after, describe, test } from "node:test";
import { CLI, localOptions, runCli, scratchDirectory } from "./cli.fixture.js";
import { EXIT } from "./exit-codes.js";

/** An endpoint nothing listens on (the discard port): the provider's calls fail at once. */
const UNREACHABLE = "http://127.0.0.1:9";

/** `args` with `--json` right after the command's name (where no flag can take it as its value). */
function withJson([command = "", ...rest]: readonly string[]): string[] {
  return [command, "--json", ...rest];
}

interface JsonError {
  readonly error: { readonly code: string; readonly message: string; readonly exitCode: number };
}

describe("sandport errors with --json", () => {
  const scratch = scratchDirectory("errors");
  after(() => scratch.remove());
  const credential = { SANDPORT_E2B_API_KEY: "e2b_errors_test_key_0123456789" };

  const cases: {
    readonly what: string;
    readonly args: string[];
    readonly env?: Record<string, string>;
    readonly exit: number;
    readonly code: string;
  }[] = [
    { what: "an unknown flag", args: ["doctor", "--bogus"], exit: EXIT.USAGE, code: "USAGE" },
    { what: "an unknown command", args: ["teleport"], exit: EXIT.USAGE, code: "USAGE" },
    { what: "a missing flag value", args: ["capabilities", "--provider"], exit: EXIT.USAGE, code: "USAGE" },
    {
      what: "an unknown provider",
      args: ["capabilities", "--provider", "nimbus"],
      exit: EXIT.USAGE,
      code: "UNKNOWN_PROVIDER",
    },
    {
      what: "a bad value",
      args: ["sweep", "--provider", "local", "--older-than", "soon"],
      exit: EXIT.USAGE,
      code: "USAGE",
    },
    {
      what: "run's bad value",
      args: ["run", "--provider", "local", "--timeout", "soon", "--", "true"],
      exit: EXIT.USAGE,
      code: "USAGE",
    },
    {
      what: "a runtime refusing an option value",
      args: ["capabilities", "--provider", "local", "--option", "isolation=bogus"],
      exit: EXIT.USAGE,
      code: "INVALID_REQUEST",
    },
    {
      what: "missing credentials",
      args: ["sweep", "--provider", "e2b", "--older-than", "1h"],
      exit: EXIT.NOT_CONFIGURED,
      code: "NOT_CONFIGURED",
    },
    {
      what: "run's missing credentials",
      args: ["run", "--provider", "e2b", "--", "true"],
      exit: EXIT.RUN_FAILED,
      code: "NOT_CONFIGURED",
    },
    {
      what: "an unreachable provider",
      args: ["sweep", "--provider", "e2b", "--endpoint", UNREACHABLE, "--older-than", "1h"],
      env: credential,
      exit: EXIT.PROVIDER,
      code: "PROVIDER_UNAVAILABLE",
    },
    {
      what: "run's unreachable provider",
      args: ["run", "--provider", "e2b", "--endpoint", UNREACHABLE, "--", "true"],
      env: credential,
      exit: EXIT.RUN_FAILED,
      code: "PROVIDER_UNAVAILABLE",
    },
  ];

  for (const { what, args, env, exit, code } of cases) {
    test(`${what}: the same exit code, and one JSON object on stdout`, async () => {
      const plain = await runCli(args, { env: env ?? {} });
      assert.equal(plain.code, exit, plain.stderr);
      assert.equal(plain.stdout, "", "without --json, errors go to stderr only");
      const json = await runCli(withJson(args), { env: env ?? {} });
      assert.equal(json.code, exit, json.stderr);
      const report = JSON.parse(json.stdout) as JsonError;
      assert.equal(report.error.code, code);
      assert.equal(report.error.exitCode, exit);
      assert.ok(report.error.message.length > 0);
      assert.ok(!json.stdout.includes(credential.SANDPORT_E2B_API_KEY));
      assert.doesNotMatch(json.stderr, /^\s*[{[]/m, "nothing JSON-looking on stderr");
    });
  }

  test("a failure after the command ran: the JSON error carries the partial result", async () => {
    const root = `${scratch.path}/root`;
    const args = ["run", "--provider", "local", ...localOptions(root), "--json", "--collect", "absent.txt", "--"];
    const { code, stdout } = await runCli([...args, "sh", "-c", "echo ran"]);
    assert.equal(code, EXIT.RUN_FAILED);
    const report = JSON.parse(stdout) as JsonError & { error: { result?: { exitCode: number; stdout: string } } };
    assert.equal(report.error.code, "NOT_FOUND");
    assert.equal(report.error.exitCode, EXIT.RUN_FAILED);
    assert.equal(report.error.result?.exitCode, 0);
    assert.equal(report.error.result?.stdout, "ran\n");
  });
});

describe("SandportError's name where the command runs", () => {
  // Node prints an uncaught error under its class's name. Resolved from the built CLI's directory, as the
  // command resolves them: the core it loads, and the umbrella's own `sandport/core`.
  for (const specifier of ["@sandport/core", "sandport/core"]) {
    for (const format of ["module", "commonjs"] as const) {
      test(`${specifier} (${format}): an uncaught one prints SandportError`, () => {
        const load = format === "module" ? `await import("${specifier}")` : `require("${specifier}")`;
        const script = `const { SandportError } = ${load}; throw new SandportError({ code: "UNSUPPORTED", message: "no such thing" });`;
        const child = spawnSync(process.execPath, [`--input-type=${format}`, "-e", script], {
          cwd: dirname(CLI),
          encoding: "utf8",
        });
        assert.notEqual(child.status, 0);
        assert.match(child.stderr, /^SandportError: no such thing$/m);
        assert.doesNotMatch(child.stderr, /_SandportError/);
      });
    }
  }

  test("the command's own report of a provider's error names no class", async () => {
    const { stderr } = await runCli(["sweep", "--provider", "e2b", "--endpoint", UNREACHABLE, "--older-than", "1h"], {
      env: { SANDPORT_E2B_API_KEY: "e2b_errors_test_key_0123456789" },
    });
    assert.match(stderr, /^error: e2b: .*\[PROVIDER_UNAVAILABLE\]$/m);
    assert.doesNotMatch(stderr, /SandportError/);
  });
});
