import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type CommandRef,
  type CommandStatus,
  type ExecResult,
  invalidRequest,
  type ResourceLimitKind,
  SandportError,
  sleep,
  validateCommandRef,
} from "@sandport/core";
import { withLimit } from "@sandport/core/adapter";
import { type CounterFiles, countersFrom, limitBetween } from "../cgroups/limit-counters.js";
import { type FileSystemStatistics, fullByStatistics } from "../disk/workspace-disk.js";
import { LOCAL_PROVIDER, type LocalIsolation } from "../options.js";
import { identify, isAlive, type ProcessIdentity, signalGroup, signalProcess } from "../processes/process-tree.js";
import type { SpawnPlan } from "./command-plan.js";
import { coverInheritedDescriptors } from "./inherited-descriptors.js";
import { SUPERVISOR_SOURCE } from "./supervisor-source.js";

/** A command that has a directory but no supervisor record for this long never started. */
const START_GRACE_MS = 30_000;

/** Everything the supervisor needs, as stored in `plan.json`. */
export interface SupervisedCommand {
  readonly plan: SpawnPlan;
  readonly stdin?: Uint8Array;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly killGraceMs: number;
  /** What the supervisor reads around the command, for its `limit` (see {@link AsyncWatch}). */
  readonly watch?: AsyncWatch;
}

/**
 * What an async command's supervisor reads before it spawns the command and
 * after it ends: the sandbox's limit counter files and, for a bounded
 * workspace, its file system (`statfs`, only after a failure).
 */
export interface AsyncWatch {
  readonly counters: readonly CounterFiles[];
  /** Host directory of a bounded workspace. */
  readonly workspace?: string;
}

/** What the supervisor read (see {@link AsyncWatch}): the counter files' texts and the file system's figures. */
interface Watched {
  readonly before: readonly CounterFiles[];
  readonly after: readonly CounterFiles[];
  readonly disk?: FileSystemStatistics;
}

interface CommandMeta {
  readonly sessionId: string;
  readonly commandId: string;
  readonly startedAt: string;
  readonly isolation: LocalIsolation;
}

interface ExitRecord {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly truncated: boolean;
  readonly durationMs: number;
  readonly watched?: Watched;
}

/**
 * The limit an async command ended at, judged as `exec`'s are: an OOM kill
 * or a refused fork counted between the supervisor's two readings, else a
 * bounded workspace full after the command failed. `undefined` for a command
 * whose supervisor watched nothing (a sandbox without limits).
 */
export function asyncLimit(exit: Pick<ExitRecord, "watched">): ResourceLimitKind | undefined {
  const watched = exit.watched;
  if (!watched) return undefined;
  const counted =
    watched.before.length > 0 ? limitBetween(countersFrom(watched.before), countersFrom(watched.after)) : undefined;
  return counted ?? (watched.disk && fullByStatistics(watched.disk) ? "disk" : undefined);
}

/** The command id for a session id: stable, so every process derives the same one. */
export function commandIdFor(sessionId: string): string {
  return `cmd-${createHash("sha256").update(sessionId).digest("hex").slice(0, 32)}`;
}

/** Checks a `CommandRef` (the port's rule, and a command id that belongs to its session id). */
export function checkRef(ref: unknown): CommandRef {
  const checked = validateCommandRef(ref, LOCAL_PROVIDER);
  if (checked.commandId !== commandIdFor(checked.sessionId)) {
    throw invalidRequest("command ref's commandId does not belong to its sessionId", { field: "ref" }, LOCAL_PROVIDER);
  }
  return checked;
}

/**
 * Async commands of one sandbox, kept in `<sandbox>/commands/<commandId>/`
 * (outside the workspace): `meta.json`, `plan.json` (mode 0600: it holds the
 * env), `supervisor.json`, `child.json`, `stdout`, `stderr`, `exit.json`.
 *
 * The directory name derives from the session id and appears atomically
 * (built aside, then renamed), so of two starts with the same session id, in
 * any processes, exactly one runs the command and both return the same ref.
 */
export class AsyncCommands {
  readonly #directory: string;

  /** @param directory the sandbox's `commands/` directory */
  constructor(directory: string) {
    this.#directory = directory;
  }

  /** True when a command with this session id already exists. */
  async has(sessionId: string): Promise<boolean> {
    return (await readMeta(join(this.#directory, commandIdFor(sessionId)))) !== undefined;
  }

  /**
   * Claims the session id and starts a detached supervisor for the command.
   * Returns `false` (and starts nothing) when the session id was already claimed.
   * Aborting `signal` before the claim throws its reason, and starts nothing.
   */
  async start(sessionId: string, command: SupervisedCommand, signal?: AbortSignal): Promise<boolean> {
    const commandId = commandIdFor(sessionId);
    const final = join(this.#directory, commandId);
    const staging = join(this.#directory, `.staging-${commandId}-${randomBytes(4).toString("hex")}`);
    const { plan } = command;
    const meta: CommandMeta = { sessionId, commandId, startedAt: new Date().toISOString(), isolation: plan.isolation };
    const stored = {
      ...plan,
      fd3: plan.fd3?.toString("base64"),
      filter: plan.filter?.toString("base64"),
      stdin: command.stdin ? Buffer.from(command.stdin).toString("base64") : undefined,
      timeoutMs: command.timeoutMs,
      maxOutputBytes: command.maxOutputBytes,
      killGraceMs: command.killGraceMs,
      watch: command.watch,
    };
    // Not recursive: a sandbox directory removed meanwhile must not be made again (ENOENT instead).
    await mkdir(this.#directory, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
    await mkdir(staging, { mode: 0o700 });
    await writeFile(join(staging, "meta.json"), JSON.stringify(meta), { mode: 0o600 });
    await writeFile(join(staging, "plan.json"), JSON.stringify(stored), { mode: 0o600 });
    try {
      // Aborted (its sandbox's destroy began, or the caller gave up): the session id is not claimed. Once it
      // is, the supervisor starts; a destroy that began meanwhile waits for that, then stops it.
      signal?.throwIfAborted();
      await rename(staging, final);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST" || code === "ENOTEMPTY") return false;
      throw error;
    }
    const supervisor = spawn(process.execPath, ["-e", SUPERVISOR_SOURCE, final], {
      cwd: "/",
      env: {},
      // The supervisor's children must not inherit what this process inherited.
      stdio: coverInheritedDescriptors(["ignore", "ignore", "ignore"]),
      detached: true,
    });
    const spawned = await new Promise<ProcessIdentity | Error>((resolve) => {
      supervisor.once("error", resolve);
      supervisor.once("spawn", () => resolve(identify(supervisor.pid as number) ?? new Error("supervisor vanished")));
    });
    supervisor.unref();
    if (spawned instanceof Error) {
      const record: ExitRecord = { exitCode: null, timedOut: false, truncated: false, durationMs: 0 };
      await writeFile(join(final, "exit.json"), JSON.stringify(record), { mode: 0o600 });
      await writeFile(join(final, "stderr"), `sandport: could not start the supervisor: ${spawned.message}\n`);
      throw new SandportError({
        code: "UNEXPECTED",
        provider: LOCAL_PROVIDER,
        message: `could not start the supervisor of command ${sessionId}: ${spawned.message}`,
        cause: spawned,
      });
    }
    await writeFile(join(final, "supervisor.json"), JSON.stringify(spawned), { mode: 0o600 });
    return true;
  }

  /** Where a command is. `NOT_FOUND` when there is no such command. */
  async status(ref: CommandRef): Promise<CommandStatus> {
    const state = await this.#inspect(ref);
    if (!state.exit) return { state: "running", exitCode: null };
    const { exitCode } = state.exit;
    const limit = asyncLimit(state.exit);
    // The port's one rule (`withLimit`): a limit is reported only for a command that did not succeed.
    return limit === undefined || exitCode === 0 ? { state: "exited", exitCode } : { state: "exited", exitCode, limit };
  }

  /** Output so far (complete once exited), as an `ExecResult`. */
  async logs(ref: CommandRef): Promise<ExecResult> {
    const state = await this.#inspect(ref);
    const directory = join(this.#directory, ref.commandId);
    const [stdout, stderr] = await Promise.all([
      readFile(join(directory, "stdout"), "utf8").catch(() => ""),
      readFile(join(directory, "stderr"), "utf8").catch(() => ""),
    ]);
    const exit = state.exit;
    const result: ExecResult = {
      exitCode: exit ? exit.exitCode : null,
      stdout,
      stderr,
      truncated: exit?.truncated ?? false,
      timedOut: exit?.timedOut ?? false,
      durationMs: exit ? exit.durationMs : Date.now() - Date.parse(state.meta.startedAt),
      isolation: state.meta.isolation,
    };
    return exit ? withLimit(result, asyncLimit(exit)) : result;
  }

  /**
   * Stops every command still running (SIGTERM to supervisor and command
   * group, SIGKILL after `graceMs`) and waits until their supervisors are gone.
   */
  async stopAll(graceMs: number): Promise<void> {
    const names = await readdir(this.#directory).catch(() => [] as string[]);
    const live: ProcessIdentity[] = [];
    const groups: ProcessIdentity[] = [];
    for (const name of names) {
      const directory = join(this.#directory, name);
      const supervisor = await readIdentity(join(directory, "supervisor.json"));
      const child = await readIdentity(join(directory, "child.json"));
      if (supervisor && isAlive(supervisor)) live.push(supervisor);
      if (child && isAlive(child)) groups.push(child);
    }
    for (const identity of live) signalProcess(identity.pid, "SIGTERM");
    for (const identity of groups) signalGroup(identity.pid, "SIGTERM");
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && [...live, ...groups].some(isAlive)) await sleep(10);
    for (const identity of live) if (isAlive(identity)) signalProcess(identity.pid, "SIGKILL");
    for (const identity of groups) if (isAlive(identity)) signalGroup(identity.pid, "SIGKILL");
    const killed = Date.now() + 2_000;
    while (Date.now() < killed && [...live, ...groups].some(isAlive)) await sleep(10);
  }

  async #inspect(ref: CommandRef): Promise<{ meta: CommandMeta; exit: ExitRecord | undefined }> {
    const directory = join(this.#directory, ref.commandId);
    const meta = await readMeta(directory);
    if (!meta || meta.sessionId !== ref.sessionId) {
      throw new SandportError({
        code: "NOT_FOUND",
        provider: LOCAL_PROVIDER,
        message: `no command with session id ${JSON.stringify(ref.sessionId)} in this sandbox`,
        details: { sessionId: ref.sessionId },
      });
    }
    const exit = await readExit(directory);
    if (exit) return { meta, exit };
    const supervisor = await readIdentity(join(directory, "supervisor.json"));
    if (supervisor ? isAlive(supervisor) : Date.now() - Date.parse(meta.startedAt) < START_GRACE_MS) {
      return { meta, exit: undefined };
    }
    // Gone without a word, unless it wrote its record while we looked.
    const late = await readExit(directory);
    const vanished: ExitRecord = { exitCode: 255, timedOut: false, truncated: false, durationMs: 0 };
    return { meta, exit: late ?? vanished };
  }
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as T;
  } catch {
    return undefined;
  }
}

const readMeta = (directory: string) => readJson<CommandMeta>(join(directory, "meta.json"));
const readExit = (directory: string) => readJson<ExitRecord>(join(directory, "exit.json"));
const readIdentity = (path: string) => readJson<ProcessIdentity>(path);
