// Helpers shared by this package's tests. Not exported from the package.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { env } from "node:process";
import { fileURLToPath } from "node:url";
import { probeBwrap } from "./commands/bwrap.js";
import { LocalRuntime } from "./local-runtime.js";
import { DEFAULT_BWRAP_PATH } from "./options.js";
import { identify, type ProcessIdentity } from "./processes/process-tree.js";

/** This package's directory (children run from here so `--import tsx` resolves). */
export const PACKAGE_DIRECTORY = fileURLToPath(new URL("..", import.meta.url));
/** The package entry, as source. */
export const ENTRY = fileURLToPath(new URL("./index.ts", import.meta.url));

/**
 * `undefined` when bubblewrap works here, else the reason to skip. With
 * `SANDPORT_REQUIRE_BWRAP=1` (CI) a missing bubblewrap throws instead, so
 * isolation tests can never be skipped silently there.
 */
export async function bwrapSkipReason(): Promise<string | undefined> {
  const probe = await probeBwrap(DEFAULT_BWRAP_PATH);
  if (probe.ok) return undefined;
  if (env.SANDPORT_REQUIRE_BWRAP === "1") throw new Error(`bubblewrap is required but unusable: ${probe.reason}`);
  return `bubblewrap is unusable here: ${probe.reason}`;
}

/**
 * A fresh temporary directory, removed by the returned function. Used as a
 * runtime's root, removing it first destroys every sandbox still in it, so a
 * test that failed before its destroy leaves no process or host cgroup behind
 * (deleting the directory alone would leave both). Await it where that matters.
 */
export function temporaryDirectory(prefix: string): { path: string; remove: () => Promise<void> } {
  const path = mkdtempSync(join(tmpdir(), `sandport-local-${prefix}-`));
  const remove = async () => {
    try {
      // Any instance over the root can destroy its sandboxes (their records, cgroups, mounts and markers are
      // there), one of each owner: a sandbox left for `rm` would leave its mount, cgroups and uid behind.
      const owners = new Set<string | undefined>([undefined]);
      for (const name of readdirSync(path)) {
        try {
          owners.add((JSON.parse(readFileSync(join(path, name, "sandbox.json"), "utf8")) as { owner?: string }).owner);
        } catch {
          // Not a sandbox (or half made): nothing to destroy through the API.
        }
      }
      for (const owner of owners) {
        const runtime = new LocalRuntime({ root: path, isolation: "none", ...(owner === undefined ? {} : { owner }) });
        const handles = await runtime.findByLabels({}).catch(() => []);
        await Promise.all(handles.map((handle) => runtime.destroy(handle).catch(() => {})));
      }
    } finally {
      rmSync(path, { recursive: true, force: true });
    }
  };
  return { path, remove };
}

/** A `sleep` duration no other process on the machine uses, to count our processes by. */
export function uniqueSleep(): string {
  return `100.${Math.floor(Math.random() * 900_000 + 100_000)}`;
}

/** Pids of live (non-zombie) host processes with `argument` as one whole element of their argv. */
export function processesWithArgument(argument: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\u0000");
      const state = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]?.[0];
      if (args.includes(argument) && state !== "Z") found.push(Number(name));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

/** Kills every process carrying `argument` (test cleanup after a deliberate escape). */
export function killProcessesWithArgument(argument: string): void {
  for (const pid of processesWithArgument(argument)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Polls `predicate` until it holds or `timeoutMs` passes; returns its last value. */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Output of a child Node process. */
export interface ChildOutput {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs an ES module `script` in a fresh `node` process (TypeScript sources
 * loadable through tsx), with exactly `childEnv` as its environment plus `PATH`.
 * `ENTRY` inside the script names this package's entry. `inherited` maps a
 * descriptor number in the child to one of ours, which the child then
 * inherits (as `node app.js 200>>file` would). The returned promise also
 * carries the child process (`.child`), for tests that kill it. `user`
 * runs it as another host user (the test must be root).
 */
export function runNodeChild(
  script: string,
  childEnv: Record<string, string> = {},
  inherited: Readonly<Record<number, number>> = {},
  user: { readonly uid: number; readonly gid: number } | undefined = undefined,
): Promise<ChildOutput> & { readonly child: ChildProcess } {
  // `inherited` maps a descriptor number in the child to one of ours: the child inherits it without close-on-exec.
  const stdio: (string | number)[] = ["ignore", "pipe", "pipe"];
  for (const [at, descriptor] of Object.entries(inherited)) {
    while (stdio.length < Number(at)) stdio.push("ignore");
    stdio[Number(at)] = descriptor;
  }
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: PACKAGE_DIRECTORY,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", ...childEnv },
    stdio: stdio as ("ignore" | "pipe")[],
    ...(user ?? {}),
  }) as ChildProcess & { stdout: NodeJS.ReadableStream; stderr: NodeJS.ReadableStream };
  const output = new Promise<ChildOutput>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return Object.assign(output, { child });
}

/** The identity of a process that ran, then was SIGKILLed: a launcher that is gone. */
export async function killedProcess(): Promise<ProcessIdentity> {
  const child = spawn("/bin/sleep", ["1000"], { stdio: "ignore" });
  await once(child, "spawn");
  const identity = identify(child.pid as number);
  if (identity === undefined) throw new Error("the child could not be identified while it ran");
  child.kill("SIGKILL");
  await once(child, "exit");
  return identity;
}
