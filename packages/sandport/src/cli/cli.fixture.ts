// Helpers shared by the CLI's tests, which run the built command as a real child process
// (`node dist/cli.js ...`; `pnpm test` builds first). Not part of the package: tsup builds
// only the CLI's entries.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { type E2BEmulator, startE2BEmulator } from "@sandport/testkit/emulators/e2b";

/** The built command. */
export const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

/** The umbrella package's directory. */
export const UMBRELLA = fileURLToPath(new URL("../..", import.meta.url));

/** How one run of the command ended. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of {@link runCli}. */
export interface CliOptions {
  /** Extra environment variables (the rest of the environment is the test's, without any `SANDPORT_*`). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** The environment a CLI run gets: the test's own, with no `SANDPORT_*` variable and no colour, plus `extra`. */
export function cliEnvironment(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("SANDPORT_")));
  return { ...env, NO_COLOR: "1", ...extra };
}

/** Starts `sandport <args>` as a child process, stdout and stderr piped. */
export function startCli(args: readonly string[], options: CliOptions = {}): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? UMBRELLA,
    env: cliEnvironment(options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** A child's output so far, read as it arrives, and how it ended. */
export interface CliOutput {
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves once the child has exited and its streams have closed. */
  readonly closed: Promise<CliResult>;
}

/** Follows a started command's output as it arrives. */
export function follow(child: ChildProcess): CliOutput {
  const output = { stdout: "", stderr: "" };
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    output.stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    output.stderr += chunk;
  });
  const closed = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, ...output }));
  });
  return Object.assign(output, { closed });
}

/**
 * Runs `sandport <args>` to the end. Asynchronous on purpose: an emulator the
 * test started serves the command from this process's event loop.
 */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return follow(startCli(args, options)).closed;
}

/**
 * Starts an E2B emulator before the tests of the enclosing `describe` and stops
 * it after them, with a scratch directory removed at the end; `env()` holds
 * the credential variable the CLI reads.
 */
export function useE2BEmulator(prefix: string): {
  readonly emulator: () => E2BEmulator;
  readonly env: () => Record<string, string>;
  readonly scratch: string;
} {
  let emulator: E2BEmulator | undefined;
  const scratch = scratchDirectory(prefix);
  before(async () => {
    emulator = await startE2BEmulator();
  });
  after(async () => {
    await emulator?.stop();
    scratch.remove();
  });
  const current = () => emulator ?? assert.fail("the emulator has not started");
  return { emulator: current, env: () => ({ SANDPORT_E2B_API_KEY: current().apiKey }), scratch: scratch.path };
}

/**
 * A fresh directory, mode 0711: when the tests run as root, isolated local
 * commands run as an unprivileged user who must pass through it to a sandbox root inside.
 */
export function scratchDirectory(prefix: string): { readonly path: string; readonly remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `sandport-cli-${prefix}-`));
  chmodSync(path, 0o711);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** `--option root=<dir>` and unisolated processes: local runs that do not depend on bubblewrap. */
export function localOptions(root: string): string[] {
  return ["--option", `root=${root}`, "--option", "isolation=none"];
}
