import { unsupported } from "../errors/factories.js";
import type { SandportError } from "../errors/sandport-error.js";
import type { RuntimeRef } from "../fleet/failover/runtime-ref.js";
import type { PriceTable } from "../fleet/usage/price-table.js";
import type { SandboxUsage } from "../fleet/usage/sandbox-usage.js";
import type { UsageMeter } from "../fleet/usage/usage-meter.js";
import type { ExecEvent } from "../port/exec-event.js";
import type { ExecRequest } from "../port/exec-request.js";
import type { ExecResult } from "../port/exec-result.js";
import type { FileInput } from "../port/file-input.js";
import type { OpOptions } from "../port/op-options.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import type { OrchestratorTimeouts } from "./options.js";
import { inRun } from "./run-context.js";
import type { CallContext } from "./safe-call.js";
import { destroySandbox } from "./teardown.js";

/** @internal How `SandboxOrchestrator.session` sets up a session. */
export interface SessionSetup {
  readonly runId: string;
  readonly destroysOnDispose: boolean;
  readonly listenerErrors: readonly SandportError[];
  /** Which of the orchestrator's runtimes launched the sandbox. */
  readonly placement: RuntimeRef;
  readonly meter: UsageMeter;
  readonly prices: PriceTable | undefined;
}

/**
 * One acquired sandbox, bound to the runtime that launched it, that destroys
 * itself when disposed: `await using session = await orchestrator.session(spec)`.
 *
 * Every call goes to that runtime (after a failover, the one the launch moved
 * to), and is metered: `usage` says what the sandbox was used for, and
 * disposal emits it as a `usage` event.
 *
 * Disposal destroys the sandbox (unless the session was opened with
 * `teardown: "keep"`) and throws if destruction could not be verified: a
 * teardown failure is never hidden.
 */
export class SandboxSession<H extends SandboxHandle = SandboxHandle> implements AsyncDisposable {
  /** The session's run id, which every event of the session carries (`OrchestratorEvent.runId`). */
  readonly runId: string;
  /** The runtime this session runs on: the one that launched its sandbox. */
  readonly runtime: SandboxRuntime<H>;
  /** Which of the orchestrator's runtimes that is. */
  readonly placement: RuntimeRef;
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
  readonly #meter: UsageMeter;
  readonly #prices: PriceTable | undefined;
  #teardown: Promise<void> | undefined;
  #finished = false;

  /** @internal Sessions are created by `SandboxOrchestrator.session`. */
  constructor(
    runtime: SandboxRuntime<H>,
    handle: H,
    context: CallContext,
    timeouts: OrchestratorTimeouts,
    setup: SessionSetup,
  ) {
    this.listenerErrors = setup.listenerErrors;
    this.runtime = runtime;
    this.placement = setup.placement;
    this.runId = setup.runId;
    this.handle = handle;
    this.#context = context;
    this.#timeouts = timeouts;
    this.#meter = setup.meter;
    this.#prices = setup.prices;
    this.destroysOnDispose = setup.destroysOnDispose;
  }

  /** The sandbox id. */
  get id(): string {
    return this.handle.id;
  }

  /**
   * What the sandbox has been used for through this session: final once the
   * session is disposed (`end` then says how), else counted up to now (`open`).
   * With the orchestrator's price table, an estimate.
   */
  get usage(): SandboxUsage {
    return this.#meter.report(this.#prices);
  }

  /** Runs a command to completion. */
  async exec(request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    const started = performance.now();
    const result = await inRun(this.runId, () => this.runtime.exec(this.handle, request, op));
    this.#meter.exec(request.stdin, result, performance.now() - started);
    return result;
  }

  /** Streams a command's events. Throws `UNSUPPORTED` when the runtime cannot stream. */
  execStream(request: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent> {
    if (!this.runtime.execStream) throw unsupported(this.runtime.provider, "streaming exec");
    return this.#metered(request, this.runtime.execStream(this.handle, request, op));
  }

  /** Writes files into the workspace. */
  async writeFiles(files: readonly FileInput[], op?: OpOptions): Promise<void> {
    await inRun(this.runId, () => this.runtime.writeFiles(this.handle, files, op));
    this.#meter.filesWritten(files);
  }

  /** Reads one file's bytes. */
  async readFile(path: string, op?: OpOptions): Promise<Uint8Array> {
    const bytes = await inRun(this.runId, () => this.runtime.readFile(this.handle, path, op));
    this.#meter.fileRead(bytes.byteLength);
    return bytes;
  }

  /**
   * Destroys the sandbox now (once; later calls return the same outcome) and
   * emits its usage. Rejects with the teardown error when destruction could
   * not be verified.
   */
  destroy(): Promise<void> {
    this.#teardown ??= inRun(this.runId, () =>
      destroySandbox(this.runtime, this.handle, this.#context, this.#timeouts),
    ).then((outcome) => {
      this.#finish(outcome.ok ? "destroyed" : "teardown-failed");
      if (!outcome.ok) throw outcome.error as SandportError;
    });
    return this.#teardown;
  }

  /** Called by `await using`: destroys the sandbox unless the session keeps it; either way emits its usage. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.destroysOnDispose) {
      await this.destroy();
      return;
    }
    this.#context.emit({ type: "kept", sandboxId: this.handle.id });
    this.#finish("kept");
  }

  #finish(end: "destroyed" | "kept" | "teardown-failed"): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#meter.end(end);
    this.#context.emit({ type: "usage", sandboxId: this.handle.id, usage: this.usage });
  }

  /** Passes a stream's events through, counting the command once it exits. */
  async *#metered(request: ExecRequest, events: AsyncIterable<ExecEvent>): AsyncIterable<ExecEvent> {
    const started = performance.now();
    for await (const event of events) {
      if (event.type === "exited") this.#meter.exec(request.stdin, event.result, performance.now() - started);
      yield event;
    }
  }
}
