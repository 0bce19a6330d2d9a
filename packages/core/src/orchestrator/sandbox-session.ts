import { unsupported } from "../errors/factories.js";
import type { SandportError } from "../errors/sandport-error.js";
import type { ExecEvent } from "../port/exec-event.js";
import type { ExecRequest } from "../port/exec-request.js";
import type { ExecResult } from "../port/exec-result.js";
import type { FileInput } from "../port/file-input.js";
import type { OpOptions } from "../port/op-options.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import type { OrchestratorTimeouts } from "./options.js";
import type { CallContext } from "./safe-call.js";
import { destroySandbox } from "./teardown.js";

/**
 * One acquired sandbox, bound to its runtime, that destroys itself when
 * disposed: `await using session = await orchestrator.session(spec)`.
 *
 * Disposal destroys the sandbox (unless the session was opened with
 * `teardown: "keep"`) and throws if destruction could not be verified: a
 * teardown failure is never hidden.
 */
export class SandboxSession<H extends SandboxHandle = SandboxHandle> implements AsyncDisposable {
  /** The runtime this session runs on. */
  readonly runtime: SandboxRuntime<H>;
  /** The sandbox. */
  readonly handle: H;
  /** Whether this session destroys its sandbox on disposal. */
  readonly destroysOnDispose: boolean;
  /**
   * Errors the orchestrator's `onEvent` listener threw for this session's
   * events (`UNEXPECTED`, the thrown value as `cause`); they never interrupt it.
   */
  readonly listenerErrors: readonly SandportError[];
  readonly #context: CallContext;
  readonly #timeouts: OrchestratorTimeouts;
  #teardown: Promise<void> | undefined;

  /** @internal Sessions are created by `SandboxOrchestrator.session`. */
  constructor(
    runtime: SandboxRuntime<H>,
    handle: H,
    context: CallContext,
    timeouts: OrchestratorTimeouts,
    destroysOnDispose: boolean,
    listenerErrors: readonly SandportError[] = [],
  ) {
    this.listenerErrors = listenerErrors;
    this.runtime = runtime;
    this.handle = handle;
    this.#context = context;
    this.#timeouts = timeouts;
    this.destroysOnDispose = destroysOnDispose;
  }

  /** The sandbox id. */
  get id(): string {
    return this.handle.id;
  }

  /** Runs a command to completion. */
  exec(request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    return this.runtime.exec(this.handle, request, op);
  }

  /** Streams a command's events. Throws `UNSUPPORTED` when the runtime cannot stream. */
  execStream(request: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent> {
    if (!this.runtime.execStream) throw unsupported(this.runtime.provider, "streaming exec");
    return this.runtime.execStream(this.handle, request, op);
  }

  /** Writes files into the workspace. */
  writeFiles(files: readonly FileInput[], op?: OpOptions): Promise<void> {
    return this.runtime.writeFiles(this.handle, files, op);
  }

  /** Reads one file's bytes. */
  readFile(path: string, op?: OpOptions): Promise<Uint8Array> {
    return this.runtime.readFile(this.handle, path, op);
  }

  /**
   * Destroys the sandbox now (once; later calls return the same outcome).
   * Rejects with the teardown error when destruction could not be verified.
   */
  destroy(): Promise<void> {
    this.#teardown ??= destroySandbox(this.runtime, this.handle, this.#context, this.#timeouts).then((outcome) => {
      if (!outcome.ok) throw outcome.error as SandportError;
    });
    return this.#teardown;
  }

  /** Called by `await using`: destroys the sandbox unless the session keeps it. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.destroysOnDispose) await this.destroy();
    else this.#context.emit({ type: "kept", sandboxId: this.handle.id });
  }
}
