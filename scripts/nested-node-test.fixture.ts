// For the tests of the test command's own parts: a nested `node --test` run, as the command runs one.
import { type SpawnSyncReturns, spawnSync } from "node:child_process";

/** Where and how a nested run goes: its directory, variables over this process's, and a time limit. */
export interface NestedRunOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

/**
 * Runs `node <args>` to its end and returns what it printed. Its environment is this process's,
 * with `env` over it, less NODE_TEST_CONTEXT: inside a test, node:test marks child processes as
 * its own, and a nested `node --test` would then report to this run instead of to its stdout.
 */
export function runNestedNode(args: readonly string[], options: NestedRunOptions = {}): SpawnSyncReturns<string> {
  const { NODE_TEST_CONTEXT: _context, ...inherited } = process.env;
  return spawnSync(process.execPath, [...args], {
    encoding: "utf8",
    env: { ...inherited, ...options.env },
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  });
}
