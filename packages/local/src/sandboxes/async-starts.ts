/**
 * The commands behind `LocalRuntime`'s `startCommand`, `commandStatus` and
 * `commandLogs`: each is run by a detached supervisor that records its
 * output and exit under the sandbox's metadata area (see `AsyncCommands`).
 *
 * @module
 */

import { existsSync } from "node:fs";
import {
  type CommandRef,
  type CommandStatus,
  type ExecResult,
  SandportError,
  type ValidatedExecRequest,
} from "@sandport/core";
import { releaseLeaf } from "../cgroups/cgroups.js";
import { AsyncCommands, commandIdFor } from "../commands/async-commands.js";
import type { RunningCommands } from "../commands/running-commands.js";
import type { ResolvedLocalOptions } from "../options.js";
import { notFound } from "../store/sandbox-store.js";
import { toBytes } from "./command-runs.js";
import type { SandboxAccess } from "./sandbox-access.js";

/** Starts and looks up the detached commands of this runtime's sandboxes. */
export class AsyncStarts {
  readonly #options: ResolvedLocalOptions;
  readonly #access: SandboxAccess;
  readonly #running: RunningCommands;

  /** @param running the runtime's registry of commands in flight, shared with `access` */
  constructor(options: ResolvedLocalOptions, access: SandboxAccess, running: RunningCommands) {
    this.#options = options;
    this.#access = access;
    this.#running = running;
  }

  /**
   * Starts `request` in sandbox `id` under `sessionId`, unless a command of that session exists there already
   * (from any process). Resolves with its reference once the supervisor is spawned.
   */
  start(id: string, sessionId: string, request: ValidatedExecRequest, signal: AbortSignal): Promise<CommandRef> {
    const ref: CommandRef = { sessionId, commandId: commandIdFor(sessionId) };
    // Tracked until its supervisor is recorded: a destroy begun meanwhile waits, then stops it, or it never starts.
    return this.#running.track(id, signal, async (tracked) => {
      const record = await this.#access.requireLive(id);
      const commands = this.#commands(id);
      try {
        if (await commands.has(sessionId)) return ref;
        const plan = await this.#access.planFor(record, request);
        const watch = this.#access.watchFor(record);
        const command = {
          plan,
          ...(request.stdin === undefined ? {} : { stdin: toBytes(request.stdin) }),
          timeoutMs: request.timeoutMs ?? this.#options.runBudgetMs,
          maxOutputBytes: request.maxOutputBytes ?? this.#options.maxOutputBytes,
          killGraceMs: this.#options.killGraceMs,
          ...(watch ? { watch } : {}),
        };
        const started = await commands.start(sessionId, command, tracked);
        if (!started && plan.leaf) await releaseLeaf(plan.leaf);
        return ref;
      } catch (error) {
        // Destroyed by another instance meanwhile: its files went with it (its record may go a moment later:
        // a command directory that vanished under this start says the same).
        if (SandportError.hasCode(error, "NOT_FOUND")) throw error;
        const vanished =
          (error as NodeJS.ErrnoException).code === "ENOENT" && !existsSync(this.#access.store().commandsDirectory(id));
        if (vanished || (await this.#access.store().read(id)).state === "absent") throw notFound(id);
        throw error;
      }
    });
  }

  /** Where a started command of live sandbox `id` is (see `AsyncCommands.status`). */
  async status(id: string, ref: CommandRef): Promise<CommandStatus> {
    await this.#access.requireLive(id);
    return this.#commands(id).status(ref);
  }

  /** A started command's output so far, complete once it has exited. */
  async logs(id: string, ref: CommandRef): Promise<ExecResult> {
    await this.#access.requireLive(id);
    return this.#commands(id).logs(ref);
  }

  #commands(id: string): AsyncCommands {
    return new AsyncCommands(this.#access.store().commandsDirectory(id));
  }
}
