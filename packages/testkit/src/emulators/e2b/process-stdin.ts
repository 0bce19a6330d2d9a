import type { ArgvExecRequest, ExecEvent, OpOptions, SandboxHandle, SandboxProcess } from "@sandport/core";

/** How long the backend may take to start a spawned process. */
const SPAWN_TIMEOUT_MS = 60_000;

/** The standard input of a process started with `stdin: true`, as SendInput, StreamInput and CloseStdin use it. */
export interface ProcessStdin {
  /** Appends bytes to the process's stdin. */
  write(data: Uint8Array): Promise<void>;
  /** Closes it: the process reads end-of-file once it has read what was written. Idempotent. */
  close(): Promise<void>;
  /** Releases what the emulator set up for it, once the process has ended. */
  dispose(): Promise<void>;
}

/**
 * The stdin of a process the backend runs with `spawn` (its `interactive`
 * capability, as `LocalRuntime` has): the real process's own stdin, so bytes
 * reach it exactly and in order, and its output comes with the bytes it wrote.
 * Writes made before the spawn resolved wait for it.
 */
export class SpawnedStdin implements ProcessStdin {
  readonly #process: Promise<SandboxProcess>;
  #settle!: { resolve: (process: SandboxProcess) => void; reject: (error: unknown) => void };

  constructor() {
    this.#process = new Promise<SandboxProcess>((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    // A spawn that failed is reported by `run`; writes that wait for it fail with it.
    this.#process.catch(() => {});
  }

  /**
   * Spawns `request` with the backend's `spawn` and yields its events
   * (`started`, output with its bytes, `exited`). Aborting `signal` kills the process.
   */
  async *run(
    spawn: (handle: SandboxHandle, request: ArgvExecRequest, op: OpOptions) => Promise<SandboxProcess>,
    handle: SandboxHandle,
    request: ArgvExecRequest,
    signal: AbortSignal,
  ): AsyncIterable<ExecEvent> {
    let process: SandboxProcess;
    try {
      process = await spawn(handle, request, { signal, timeoutMs: SPAWN_TIMEOUT_MS });
    } catch (error) {
      this.#settle.reject(error);
      throw error;
    }
    this.#settle.resolve(process);
    yield* process.events;
  }

  async write(data: Uint8Array): Promise<void> {
    await (await this.#process).write(data);
  }

  async close(): Promise<void> {
    await (await this.#process).closeStdin();
  }

  async dispose(): Promise<void> {}
}
