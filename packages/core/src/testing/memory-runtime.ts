// An in-memory runtime for core's own tests: it implements the port with a Map
// per sandbox and a tiny command language, records every call, and lets a test
// script failures per method. Not exported from the package.

import type { DeclaredCapabilities } from "../capabilities/declared-capabilities.js";
import { unsupported } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import type { ExecEvent } from "../port/exec-event.js";
import type { ExecRequest } from "../port/exec-request.js";
import type { ExecResult } from "../port/exec-result.js";
import type { FileInput } from "../port/file-input.js";
import type { Labels } from "../port/labels.js";
import type { LaunchSpec } from "../port/launch-spec.js";
import type { OpOptions } from "../port/op-options.js";
import { LAUNCH_KEY_LABEL } from "../port/reserved-labels.js";
import type { SandboxHandle } from "../port/sandbox-handle.js";
import type { SandboxRuntime } from "../port/sandbox-runtime.js";
import { sleep } from "../timing/abort.js";
import { withDeadline } from "../timing/deadline.js";
import { validateExecRequest, validateFiles } from "../validation/requests.js";
import { normalizeWorkspacePath } from "../validation/workspace-path.js";

export interface MemorySandbox {
  readonly id: string;
  readonly labels: Record<string, string>;
  readonly files: Map<string, Uint8Array>;
}

type Method = "launch" | "exec" | "writeFiles" | "readFile" | "destroy" | "findByLabels" | "getById";

/** A scripted failure: thrown by the next `times` calls of `method`. `afterWork` = do the work, then fail. */
export interface ScriptedFailure {
  readonly method: Method;
  readonly error: () => unknown;
  readonly times?: number;
  readonly afterWork?: boolean;
}

export const memoryCapabilities: DeclaredCapabilities = {
  warmLease: "unknown",
  lifecycle: "unsupported",
  verifiedCleanup: true,
  neverIdle: true,
  modes: { outputStreams: "separate", filesystem: "ephemeral", lifetime: "never-idle", isolation: "none" },
};

export class MemoryRuntime implements SandboxRuntime {
  readonly specificationVersion = "sandbox-v1" as const;
  readonly provider = "memory";
  readonly workspaceRoot = "/workspace";
  readonly capabilities = memoryCapabilities;
  readonly sandboxes = new Map<string, MemorySandbox>();
  readonly calls: { method: Method; args: unknown[] }[] = [];
  readonly failures: ScriptedFailure[] = [];
  #next = 1;

  fail(failure: ScriptedFailure): this {
    this.failures.push(failure);
    return this;
  }

  #call<T>(method: Method, args: unknown[], op: OpOptions | undefined, work: () => T | Promise<T>): Promise<T> {
    this.calls.push({ method, args });
    const index = this.failures.findIndex((failure) => failure.method === method);
    const failure = index >= 0 ? this.failures[index] : undefined;
    if (failure) {
      const remaining = (failure.times ?? 1) - 1;
      if (remaining <= 0) this.failures.splice(index, 1);
      else this.failures[index] = { ...failure, times: remaining };
    }
    return withDeadline(op, { provider: this.provider, operation: method, defaultTimeoutMs: 5_000 }, async () => {
      if (failure && !failure.afterWork) throw failure.error();
      const result = await work();
      if (failure?.afterWork) throw failure.error();
      return result;
    });
  }

  launch(spec: LaunchSpec, op?: OpOptions): Promise<SandboxHandle> {
    return this.#call("launch", [spec], op, () => {
      const id = `mem-${this.#next++}`;
      const labels: Record<string, string> = { ...spec.labels };
      if (spec.launchKey) labels[LAUNCH_KEY_LABEL] = spec.launchKey;
      this.sandboxes.set(id, { id, labels, files: new Map() });
      return { id, provider: this.provider, labels: { ...spec.labels } };
    });
  }

  getById(id: string, op?: OpOptions): Promise<SandboxHandle | undefined> {
    return this.#call("getById", [id], op, () => {
      const sandbox = this.sandboxes.get(id);
      return sandbox ? { id, provider: this.provider, labels: sandbox.labels } : undefined;
    });
  }

  findByLabels(labels: Labels, op?: OpOptions): Promise<SandboxHandle[]> {
    return this.#call("findByLabels", [labels], op, () =>
      [...this.sandboxes.values()]
        .filter((sandbox) => Object.entries(labels).every(([key, value]) => sandbox.labels[key] === value))
        .map((sandbox) => ({ id: sandbox.id, provider: this.provider, labels: sandbox.labels })),
    );
  }

  exec(handle: SandboxHandle, request: ExecRequest, op?: OpOptions): Promise<ExecResult> {
    const valid = validateExecRequest(request, { root: this.workspaceRoot, provider: this.provider });
    return this.#call("exec", [request], op, () => this.#interpret(this.#sandbox(handle), valid, op?.signal));
  }

  async *execStream(handle: SandboxHandle, request: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent> {
    const result = await this.exec(handle, request, op);
    yield { type: "started" };
    if (result.stdout) yield { type: "stdout", data: result.stdout };
    if (result.stderr) yield { type: "stderr", data: result.stderr };
    yield { type: "exited", result };
  }

  writeFiles(handle: SandboxHandle, files: readonly FileInput[], op?: OpOptions): Promise<void> {
    const valid = validateFiles(files, { root: this.workspaceRoot, provider: this.provider });
    return this.#call("writeFiles", [files], op, () => {
      const sandbox = this.#sandbox(handle);
      for (const file of valid) sandbox.files.set(file.path, file.content);
    });
  }

  readFile(handle: SandboxHandle, path: string, op?: OpOptions): Promise<Uint8Array> {
    const relative = normalizeWorkspacePath(path, { root: this.workspaceRoot, provider: this.provider });
    return this.#call("readFile", [path], op, () => {
      const content = this.#sandbox(handle).files.get(relative);
      if (!content) throw new SandportError({ code: "NOT_FOUND", provider: this.provider, message: `no file ${path}` });
      return content;
    });
  }

  destroy(handle: SandboxHandle, op?: OpOptions): Promise<void> {
    return this.#call("destroy", [handle.id], op, () => {
      this.sandboxes.delete(handle.id);
    });
  }

  #sandbox(handle: SandboxHandle): MemorySandbox {
    const sandbox = this.sandboxes.get(handle.id);
    if (!sandbox)
      throw new SandportError({ code: "NOT_FOUND", provider: this.provider, message: `no sandbox ${handle.id}` });
    return sandbox;
  }

  /** Commands: `echo <words>`, `exit <code>`, `sleep <ms>`, `write <path> <text>`. */
  async #interpret(sandbox: MemorySandbox, request: ExecRequest, signal?: AbortSignal): Promise<ExecResult> {
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
  return new SandportError({ code: "PROVIDER_UNAVAILABLE", provider: "memory", message: "503 from provider" });
}
