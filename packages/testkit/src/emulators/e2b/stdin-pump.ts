import type { ArgvExecRequest, SandboxHandle, SandboxRuntime } from "@sandport/core";
import { CONTROL_PREFIX } from "./paths.js";
import type { ProcessStdin } from "./process-stdin.js";

const HELPER_TIMEOUT_MS = 30_000;

/**
 * Standard input for a process started with `stdin: true` on a backend
 * without `spawn` (with one, `SpawnedStdin` feeds the real process's stdin).
 *
 * `exec` only takes stdin as bytes known up front, so the emulator gives the
 * process a named pipe in a control directory at the workspace root (hidden
 * from listings) and feeds it through the backend: a "holder" command keeps the
 * pipe's write end open until CloseStdin, and each SendInput runs `cat >> pipe`
 * with the bytes as its stdin. Everything runs on the backend, so it works the
 * same with or without namespace isolation.
 */
export class StdinPump implements ProcessStdin {
  readonly #backend: SandboxRuntime;
  readonly #handle: SandboxHandle;
  readonly #directory: string;
  readonly #abort = new AbortController();
  #holder: Promise<unknown> | undefined;
  #closed = false;

  private constructor(backend: SandboxRuntime, handle: SandboxHandle, directory: string) {
    this.#backend = backend;
    this.#handle = handle;
    this.#directory = directory;
  }

  /** Create the pipes for process `pid`. */
  static async create(backend: SandboxRuntime, handle: SandboxHandle, pid: number): Promise<StdinPump> {
    const directory = `${CONTROL_PREFIX}${pid}`;
    const result = await backend.exec(
      handle,
      {
        argv: ["/bin/sh", "-c", 'mkdir -p -- "$1" && mkfifo -m 600 -- "$1/in" "$1/ctl"', "sh", directory],
        timeoutMs: HELPER_TIMEOUT_MS,
      },
      { timeoutMs: HELPER_TIMEOUT_MS },
    );
    if (result.exitCode !== 0) throw new Error(`could not create the stdin pipe: ${result.stderr.trim()}`);
    return new StdinPump(backend, handle, directory);
  }

  /**
   * The process's own request, reading its stdin from the pipe. The wrapper
   * starts at the workspace root, opens the pipe, then changes to the
   * requested directory, so the pipe's relative path holds. Starts the holder.
   */
  wrap(request: ArgvExecRequest, cwd: string | undefined): ArgvExecRequest {
    this.#holder = this.#backend
      .exec(
        this.#handle,
        {
          argv: ["/bin/sh", "-c", 'exec 3>"$1"; read -r _ < "$2"; exit 0', "sh", this.#pipe, this.#control],
          timeoutMs: request.timeoutMs,
        },
        { signal: this.#abort.signal, timeoutMs: request.timeoutMs },
      )
      .catch(() => undefined);
    const { cwd: _ignored, ...rest } = request;
    return {
      ...rest,
      argv: [
        "/bin/sh",
        "-c",
        'exec 0<"$1" && cd -- "$2" && shift 2 && exec "$@"',
        "sh",
        this.#pipe,
        cwd ?? ".",
        ...request.argv,
      ],
    };
  }

  /** Append bytes to the process's stdin. */
  async write(data: Uint8Array): Promise<void> {
    if (this.#closed) throw new Error("stdin is closed");
    const result = await this.#backend.exec(
      this.#handle,
      { argv: ["/bin/sh", "-c", 'cat >> "$1"', "sh", this.#pipe], stdin: data, timeoutMs: HELPER_TIMEOUT_MS },
      { signal: this.#abort.signal, timeoutMs: HELPER_TIMEOUT_MS },
    );
    if (result.exitCode !== 0) throw new Error(`could not write stdin: ${result.stderr.trim() || "killed"}`);
  }

  /**
   * Close the process's stdin (it reads end-of-file once the pipe drains).
   * Returns once the close is signalled, as envd does, without waiting for the
   * process to react; `dispose` reaps the holder.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    let result: Awaited<ReturnType<SandboxRuntime["exec"]>>;
    try {
      result = await this.#backend.exec(
        this.#handle,
        { argv: ["/bin/sh", "-c", ': > "$1"', "sh", this.#control], timeoutMs: HELPER_TIMEOUT_MS },
        { signal: this.#abort.signal, timeoutMs: HELPER_TIMEOUT_MS },
      );
    } catch (error) {
      // The close reached the holder, the process read end-of-file and ended, and its
      // disposal aborted this helper before it reported back: stdin is closed either way.
      if (this.#abort.signal.aborted) return;
      throw error;
    }
    if (result.exitCode !== 0) throw new Error(`could not close stdin: ${result.stderr.trim() || "killed"}`);
  }

  /** Stop the helpers and remove the pipes (the process has ended). */
  async dispose(): Promise<void> {
    this.#closed = true;
    this.#abort.abort(new Error("process ended"));
    await this.#holder;
    try {
      if (this.#backend.remove)
        await this.#backend.remove(this.#handle, this.#directory, { timeoutMs: HELPER_TIMEOUT_MS });
      else
        await this.#backend.exec(
          this.#handle,
          { argv: ["rm", "-rf", "--", this.#directory], timeoutMs: HELPER_TIMEOUT_MS },
          { timeoutMs: HELPER_TIMEOUT_MS },
        );
    } catch {
      // The sandbox may be gone already; its workspace goes with it.
    }
  }

  get #pipe(): string {
    return `${this.#directory}/in`;
  }

  get #control(): string {
    return `${this.#directory}/ctl`;
  }
}
