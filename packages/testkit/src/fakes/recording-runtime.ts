import {
  type DeclaredCapabilities,
  type ExecEvent,
  type ExecRequest,
  type ExecResult,
  type FileInput,
  LAUNCH_KEY_LABEL,
  type Labels,
  type LaunchSpec,
  normalizeWorkspacePath,
  type OpOptions,
  type SandboxHandle,
  type SandboxRuntime,
  SandportError,
  sleep,
  unsupported,
  type ValidatedExecRequest,
  validateExecRequest,
  validateFiles,
} from "@sandport/core";
import { runOperation } from "@sandport/core/adapter";

/** One sandbox of a {@link RecordingRuntime}: its labels and files, in memory. */
export interface RecordedSandbox {
  readonly id: string;
  readonly labels: Record<string, string>;
  readonly files: Map<string, Uint8Array>;
}

/** The methods a {@link RecordingRuntime} records and can fail. */
export type RecordedMethod = "launch" | "exec" | "writeFiles" | "readFile" | "destroy" | "findByLabels" | "getById";

/** A scripted failure: thrown by the next `times` calls of `method`. `afterWork` = do the work, then fail. */
export interface ScriptedFailure {
  /** Which method fails. */
  readonly method: RecordedMethod;
  /** Builds the error to throw (a fresh one each time). */
  readonly error: () => unknown;
  /** How many calls fail. Default 1. */
  readonly times?: number;
  /** Do the work first, then fail: a response lost after the provider acted. */
  readonly afterWork?: boolean;
}

/** What a {@link RecordingRuntime} declares: nothing proven beyond its methods. */
export const recordingCapabilities: DeclaredCapabilities = {
  warmLease: "unknown",
  lifecycle: "unsupported",
  verifiedCleanup: true,
  neverIdle: true,
  // Its output events carry the UTF-8 encoding of their text, not raw bytes.
  binaryOutput: "unsupported",
  // Its commands run in-process: no limit of `LaunchSpec.resources` is enforced.
  memoryLimit: "unsupported",
  cpuLimit: "unsupported",
  processLimit: "unsupported",
  diskLimit: "unsupported",
  // Its commands are a tiny language with no network to reach: no policy to choose.
  modes: {
    outputStreams: "separate",
    filesystem: "ephemeral",
    lifetime: "never-idle",
    isolation: "none",
    networkPolicy: "unsupported",
    stopKeeps: "unsupported",
  },
  // Its commands are a tiny language, not programs: there is nothing to put on a terminal.
  absent: { pty: "unsupported" },
};

/**
 * A runtime that keeps sandboxes in memory and runs a tiny command language
 * (`echo <words>`, `exit <code>`, `sleep <ms>`, `write <path> <text>`), for
 * tests of code that drives runtimes (the orchestrator, bridges). It records
 * every call (`calls`) and can fail on cue (`fail`). Combine it with
 * {@link withoutMethods} to test a caller against a runtime that lacks a capability.
 */
export class RecordingRuntime implements SandboxRuntime {
  /** The port version. */
  readonly specificationVersion = "sandbox-v1" as const;
  /** Always `"recording"`. */
  readonly provider = "recording";
  /** `/workspace`. */
  readonly workspaceRoot = "/workspace";
  /** See {@link recordingCapabilities}. */
  readonly capabilities = recordingCapabilities;
  /** Live sandboxes by id. */
  readonly sandboxes = new Map<string, RecordedSandbox>();
  /** Every call, in order, with its arguments. */
  readonly calls: { method: RecordedMethod; args: unknown[] }[] = [];
  /** Failures still to happen. */
  readonly failures: ScriptedFailure[] = [];
  #next = 1;

  /** Scripts a failure of the next call(s) of a method. */
  fail(failure: ScriptedFailure): this {
    this.failures.push(failure);
    return this;
  }

  #call<T>(method: RecordedMethod, args: unknown[], op: OpOptions | undefined, work: () => T | Promise<T>): Promise<T> {
    this.calls.push({ method, args });
    const index = this.failures.findIndex((failure) => failure.method === method);
    const failure = index >= 0 ? this.failures[index] : undefined;
    if (failure) {
      const remaining = (failure.times ?? 1) - 1;
      if (remaining <= 0) this.failures.splice(index, 1);
      else this.failures[index] = { ...failure, times: remaining };
    }
    return runOperation(op, { provider: this.provider, operation: method, defaultTimeoutMs: 5_000 }, async () => {
      if (failure && !failure.afterWork) throw failure.error();
      const result = await work();
      if (failure?.afterWork) throw failure.error();
      return result;
    });
  }

  /** Creates a sandbox (`mem-<n>`) with the spec's labels and launch key. */
  launch(spec: LaunchSpec, op?: OpOptions): Promise<SandboxHandle> {
    return this.#call("launch", [spec], op, () => {
      const id = `rec-${this.#next++}`;
      const labels: Record<string, string> = { ...spec.labels };
      if (spec.launchKey) labels[LAUNCH_KEY_LABEL] = spec.launchKey;
      this.sandboxes.set(id, { id, labels, files: new Map() });
      return { id, provider: this.provider, labels: { ...spec.labels } };
    });
  }

  /** The sandbox with this id, or `undefined`. */
  getById(id: string, op?: OpOptions): Promise<SandboxHandle | undefined> {
    return this.#call("getById", [id], op, () => {
      const sandbox = this.sandboxes.get(id);
      return sandbox ? { id, provider: this.provider, labels: sandbox.labels } : undefined;
    });
  }

  /** Sandboxes carrying every given label. */
  findByLabels(labels: Labels, op?: OpOptions): Promise<SandboxHandle[]> {
    return this.#call("findByLabels", [labels], op, () =>
      [...this.sandboxes.values()]
        .filter((sandbox) => Object.entries(labels).every(([key, value]) => sandbox.labels[key] === value))
        .map((sandbox) => ({ id: sandbox.id, provider: this.provider, labels: sandbox.labels })),
    );
  }

  /** Runs one command of the tiny language. */
  exec(handle: SandboxHandle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    const valid = validateExecRequest(request, { root: this.workspaceRoot, provider: this.provider });
    return this.#call("exec", [request], op, () => this.#interpret(this.#sandbox(handle), valid, op?.signal));
  }

  /** `exec`, replayed as events. */
  async *execStream(handle: SandboxHandle, request: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent> {
    const result = await this.exec(handle, request, op);
    yield { type: "started" };
    const encoder = new TextEncoder();
    if (result.stdout) yield { type: "stdout", data: result.stdout, bytes: encoder.encode(result.stdout) };
    if (result.stderr) yield { type: "stderr", data: result.stderr, bytes: encoder.encode(result.stderr) };
    yield { type: "exited", result };
  }

  /** Stores files in memory. */
  writeFiles(handle: SandboxHandle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    const valid = validateFiles(files, { root: this.workspaceRoot, provider: this.provider });
    return this.#call("writeFiles", [files], op, () => {
      const sandbox = this.#sandbox(handle);
      for (const file of valid) sandbox.files.set(file.path, file.content);
    });
  }

  /** A stored file; `NOT_FOUND` otherwise. */
  readFile(handle: SandboxHandle, path: string, op?: OpOptions): Promise<Uint8Array> {
    const relative = normalizeWorkspacePath(path, { root: this.workspaceRoot, provider: this.provider });
    return this.#call("readFile", [path], op, () => {
      const content = this.#sandbox(handle).files.get(relative);
      if (!content) throw new SandportError({ code: "NOT_FOUND", provider: this.provider, message: `no file ${path}` });
      return content;
    });
  }

  /** Forgets the sandbox. */
  destroy(handle: SandboxHandle, op?: OpOptions): Promise<void> {
    return this.#call("destroy", [handle.id], op, () => {
      this.sandboxes.delete(handle.id);
    });
  }

  #sandbox(handle: SandboxHandle): RecordedSandbox {
    const sandbox = this.sandboxes.get(handle.id);
    if (!sandbox)
      throw new SandportError({ code: "NOT_FOUND", provider: this.provider, message: `no sandbox ${handle.id}` });
    return sandbox;
  }

  /** Commands: `echo <words>`, `exit <code>`, `sleep <ms>`, `write <path> <text>`. */
  async #interpret(sandbox: RecordedSandbox, request: ValidatedExecRequest, signal?: AbortSignal): Promise<ExecResult> {
    const [program, ...args] = request.argv ?? request.shell?.split(" ") ?? [];
    const done = (exitCode: number, stdout = "", stderr = ""): ExecResult => ({
      exitCode,
      stdout,
      stderr,
      truncated: false,
      timedOut: false,
      durationMs: 0,
    });
    switch (program) {
      case "echo":
        return done(0, `${args.join(" ")}\n`);
      case "exit":
        return done(Number(args[0]), "", `exit ${args[0]}\n`);
      case "sleep":
        await sleep(Number(args[0]), signal);
        return done(0);
      case "write":
        sandbox.files.set(args[0] as string, new TextEncoder().encode(args.slice(1).join(" ")));
        return done(0);
      default:
        throw unsupported(this.provider, `command ${program}`);
    }
  }
}

/** A provider-side failure of the kind that leaves a mutating call's outcome unknown. */
export function providerDown(): SandportError {
  return new SandportError({ code: "PROVIDER_UNAVAILABLE", provider: "recording", message: "503 from provider" });
}

/**
 * A view of `runtime` without the given optional methods (each reads as
 * `undefined` and is not `in` the view, so `typeof runtime.execStream !==
 * "function"`): how a caller is tested against a runtime that lacks a
 * capability. Everything else is the runtime's own, its methods bound to it,
 * so a class keeping `#private` state (a real runtime) still works.
 */
export function withoutMethods<R extends SandboxRuntime>(runtime: R, methods: readonly (keyof R & string)[]): R {
  const removed = new Set<PropertyKey>(methods);
  return new Proxy(runtime, {
    get(target, key) {
      if (removed.has(key)) return undefined;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    has: (target, key) => !removed.has(key) && Reflect.has(target, key),
  });
}
