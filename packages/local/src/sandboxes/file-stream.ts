import type { FileHandle } from "node:fs/promises";
import { abortError, SandportError, streamLimitExceeded } from "@sandport/core";
import type { RunningCommands } from "../commands/running-commands.js";
import type { WorkspaceFiles } from "../files/workspace-files.js";
import { LOCAL_PROVIDER } from "../options.js";
import { toLocalError } from "./command-runs.js";

/**
 * The most bytes one chunk of a file stream holds: a 1 GiB file is 1 024
 * reads (measured: about 0.5 s for a sparse one; half-size chunks took 0.7 s,
 * larger ones no less), and a consumer holds a mebibyte at a time.
 */
export const STREAM_CHUNK_BYTES = 1024 * 1024;

/**
 * How often a stream reads its sandbox's record, whether or not its consumer
 * is pulling: a sandbox whose destroy began in another runtime (another
 * process) ends the stream with `NOT_FOUND`, its file closed, at most this
 * long after (one destroyed by this runtime ends it at once). Shorter than a
 * destroy's wait for a busy workspace to unmount (`BUSY_RETRY_MS`), which an
 * open file on a bounded workspace would keep busy.
 */
export const STREAM_LIVENESS_MS = 1_000;

/** What a file stream needs of the runtime. */
export interface FileStreamHost {
  /** The sandbox's file access (`NOT_FOUND` when it is gone). */
  files(id: string): Promise<WorkspaceFiles>;
  /** Reads the sandbox's record afresh: rejects `NOT_FOUND` once its destroy began, in any runtime. */
  requireRecord(id: string): Promise<unknown>;
  /** Where the stream registers, so that this runtime's `destroy` ends it and waits for its file to be closed. */
  readonly running: RunningCommands;
}

/** One validated `readFileStream` call. */
export interface FileStreamRequest {
  /** The sandbox's id. */
  readonly id: string;
  /** The file, relative to the workspace, normalised. */
  readonly path: string;
  /** The largest file the stream returns; `undefined`: no cap. */
  readonly maxBytes: number | undefined;
  /** The caller's signal, if any. */
  readonly signal: AbortSignal | undefined;
  /** The whole stream's deadline. */
  readonly timeoutMs: number;
}

/**
 * Streams a workspace file: opened once through its held parent (as
 * `readFile` opens it: a symlink, a non-regular file or a path leading out is
 * refused), then read in chunks of at most {@link STREAM_CHUNK_BYTES}, each
 * read only when the consumer asks for it, up to the size the file had when
 * opened. Every chunk is a buffer of its own (the consumer may keep it).
 *
 * The caller's abort (`ABORTED`), the deadline (`DEADLINE_EXCEEDED`) and a
 * destroy of the sandbox by this runtime (`NOT_FOUND`) close the file at once,
 * even while the consumer is between chunks; the next iteration then rejects
 * with that error. Leaving the loop early closes it too.
 */
export async function* streamWorkspaceFile(
  host: FileStreamHost,
  request: FileStreamRequest,
): AsyncGenerator<Uint8Array> {
  const { id, path, maxBytes, signal, timeoutMs } = request;
  if (signal?.aborted) throw abortError(signal, LOCAL_PROVIDER, "readFileStream");
  const stop = new AbortController();
  let file: FileHandle | undefined;
  let closing: Promise<void> | undefined;
  // Resolves once the stream holds no file and never will again: what a destroy waits for.
  let released!: () => void;
  const closed = new Promise<void>((resolve) => {
    released = resolve;
  });
  const closeFile = (): Promise<void> => {
    if (file) closing ??= file.close().catch(() => {});
    return closing ?? Promise.resolve();
  };

  const onCallerAbort = () => stop.abort(abortError(signal as AbortSignal, LOCAL_PROVIDER, "readFileStream"));
  signal?.addEventListener("abort", onCallerAbort, { once: true });
  const timer = setTimeout(() => stop.abort(deadlineExceeded(timeoutMs)), timeoutMs);
  let looking = false;
  const liveness = setInterval(() => {
    if (looking) return;
    looking = true;
    host
      .requireRecord(id)
      .catch((error: unknown) => stop.abort(error))
      .finally(() => {
        looking = false;
      });
  }, STREAM_LIVENESS_MS);
  const settle = () => {
    clearTimeout(timer);
    clearInterval(liveness);
    signal?.removeEventListener("abort", onCallerAbort);
  };
  stop.signal.addEventListener(
    "abort",
    () => {
      settle();
      // A file not opened yet is closed by the stream itself, which sees `stop` once the open returns.
      if (file) void closeFile().then(released);
    },
    { once: true },
  );
  // Registered like a command; refused with `NOT_FOUND` while a destroy of the sandbox runs.
  host.running
    .track(id, stop.signal, (destroyed) => {
      const onDestroy = () => stop.abort(destroyed.reason);
      if (destroyed.aborted) onDestroy();
      else destroyed.addEventListener("abort", onDestroy, { once: true });
      return closed;
    })
    .catch((error: unknown) => stop.abort(error));
  const check = () => {
    if (stop.signal.aborted) throw stop.signal.reason;
  };

  try {
    const files = await host.files(id);
    check();
    const opened = await files.openRegular(path);
    file = opened.handle;
    check();
    const size = opened.size;
    if (maxBytes !== undefined && size > maxBytes) throw streamLimitExceeded(LOCAL_PROVIDER, path, size, maxBytes);
    let offset = 0;
    while (offset < size) {
      const length = Math.min(STREAM_CHUNK_BYTES, size - offset);
      // Unpooled: the consumer may keep `.buffer`, which must hold this chunk alone.
      const buffer = Buffer.allocUnsafeSlow(length);
      const { bytesRead } = await file.read(buffer, 0, length, offset);
      check();
      // Shrunk meanwhile: the stream ends with what there was.
      if (bytesRead === 0) break;
      offset += bytesRead;
      // A short chunk is copied, so that no uninitialised memory stays behind its `.buffer`.
      yield bytesRead === length
        ? new Uint8Array(buffer.buffer, buffer.byteOffset, length)
        : new Uint8Array(buffer.subarray(0, bytesRead));
      check();
    }
  } catch (error) {
    // A read that failed because the file was closed under it failed for the reason it was closed.
    if (stop.signal.aborted) throw stop.signal.reason;
    throw toLocalError(error);
  } finally {
    settle();
    await closeFile();
    released();
  }
}

function deadlineExceeded(timeoutMs: number): SandportError {
  return new SandportError({
    code: "DEADLINE_EXCEEDED",
    provider: LOCAL_PROVIDER,
    message: `readFileStream did not finish within ${timeoutMs} ms`,
    details: { operation: "readFileStream", timeoutMs },
  });
}
