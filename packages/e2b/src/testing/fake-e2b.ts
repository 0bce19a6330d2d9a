// A fake of the e2b SDK's typed surface (the slice in internal/sdk-types.ts) for
// unit tests. The control plane is in memory; commands run as real `bash -c`
// processes and files live on the host, so tests point the runtime's
// workspaceRoot and commandStateDirectory at a temp directory. Every call is
// recorded with its options, and failures can be scripted per method.
// Not exported from the package.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type {
  E2BCommandHandle,
  E2BCommandResult,
  E2BConnectionFields,
  E2BEntryInfo,
  E2BProcessInfo,
  E2BRunOptions,
  E2BSandbox,
  E2BSandboxInfo,
  E2BSdkModule,
} from "../internal/sdk-types.js";

/** An error shaped like the SDK's (matched by `name` and `statusCode`, as the adapter does). */
export class FakeSdkError extends Error {
  readonly statusCode: number | undefined;
  constructor(name: string, message: string, statusCode?: number) {
    super(message);
    this.name = name;
    this.statusCode = statusCode;
  }
}

/** Errors the real SDK throws, by situation. */
export const sdkErrors = {
  sandboxNotFound: (id = "?") => new FakeSdkError("SandboxNotFoundError", `Sandbox ${id} not found`),
  fileNotFound: (path = "?") => new FakeSdkError("FileNotFoundError", `file ${path} not found`),
  rateLimited: () => new FakeSdkError("RateLimitError", "Rate limit exceeded, please try again later", 429),
  serviceBusy: () => new FakeSdkError("ServiceBusyError", "Service temporarily unavailable, please retry", 503),
  serverError: (status = 500) => new FakeSdkError("SandboxError", `${status}: internal error`, status),
  auth: () => new FakeSdkError("AuthenticationError", "Unauthorized, please check your credentials."),
  forbidden: () => new FakeSdkError("SandboxError", "403: forbidden", 403),
  timeout: () => new FakeSdkError("TimeoutError", "[deadline_exceeded] the operation timed out"),
  connectionLost: () => Object.assign(new TypeError("fetch failed"), { cause: new Error("other side closed") }),
  envdUnavailable: () => new FakeSdkError("SandboxNotFoundError", "Sandbox is probably not running anymore"),
};

/** One recorded SDK call. */
export interface FakeCall {
  readonly method: string;
  readonly args: readonly unknown[];
}

interface ScriptedFailure {
  readonly method: string;
  readonly error: () => unknown;
  times: number;
  /** Do the work, then throw (a lost response). */
  readonly afterWork: boolean;
}

/** A sandbox in the fake control plane. */
export interface FakeSandbox {
  readonly id: string;
  readonly templateId: string;
  readonly metadata: Record<string, string>;
  readonly envs: Record<string, string>;
  readonly startedAt: Date;
  state: "running" | "paused";
}

interface FakeProcess {
  readonly pid: number;
  readonly child: ChildProcess;
  readonly envs: Record<string, string>;
}

/** The fake SDK. Hand `fake.module` to `E2BRuntime` as its `sdk` option. */
export class FakeE2B {
  readonly calls: FakeCall[] = [];
  readonly sandboxes = new Map<string, FakeSandbox>();
  readonly processes = new Map<number, FakeProcess>();
  /** Page size of `Sandbox.list`, whatever the caller asks for. */
  pageSize = 2;
  readonly #failures: ScriptedFailure[] = [];
  #next = 1;
  readonly module: E2BSdkModule;

  constructor() {
    this.module = {
      Sandbox: {
        create: (template, options) =>
          this.#call("Sandbox.create", [template, options], () => {
            const id = `sbx${this.#next++}`;
            this.sandboxes.set(id, {
              id,
              templateId: template,
              metadata: { ...options.metadata },
              envs: { ...options.envs },
              startedAt: new Date(),
              state: "running",
            });
            return this.#instance(id);
          }),
        connect: (sandboxId, options) =>
          this.#call("Sandbox.connect", [sandboxId, options], () => {
            const sandbox = this.#sandbox(sandboxId);
            sandbox.state = "running";
            return this.#instance(sandboxId);
          }),
        kill: (sandboxId, options) =>
          this.#call("Sandbox.kill", [sandboxId, options], () => this.sandboxes.delete(sandboxId)),
        getInfo: (sandboxId, options) =>
          this.#call("Sandbox.getInfo", [sandboxId, options], () => this.#info(this.#sandbox(sandboxId))),
        pause: (sandboxId, options) =>
          this.#call("Sandbox.pause", [sandboxId, options], () => {
            const sandbox = this.#sandbox(sandboxId);
            const wasRunning = sandbox.state === "running";
            sandbox.state = "paused";
            return wasRunning;
          }),
        list: (options) => {
          this.calls.push({ method: "Sandbox.list", args: [options] });
          let offset = 0;
          let hasNext = true;
          return {
            get hasNext() {
              return hasNext;
            },
            nextItems: (pageOptions?: E2BConnectionFields) =>
              this.#call("Sandbox.list.nextItems", [pageOptions], () => {
                const matching = [...this.sandboxes.values()].filter((sandbox) =>
                  Object.entries(options.query.metadata).every(([key, value]) => sandbox.metadata[key] === value),
                );
                const page = matching.slice(offset, offset + this.pageSize).map((sandbox) => this.#info(sandbox));
                offset += this.pageSize;
                hasNext = offset < matching.length;
                return page;
              }),
          };
        },
      },
    };
  }

  /** Makes the next `times` calls of `method` throw (`afterWork`: after doing the work). */
  fail(method: string, error: () => unknown, options: { times?: number; afterWork?: boolean } = {}): this {
    this.#failures.push({ method, error, times: options.times ?? 1, afterWork: options.afterWork ?? false });
    return this;
  }

  /** Adds a sandbox that belongs to someone else. */
  seedForeign(metadata: Record<string, string> = { "sandport.owner": "someone-else" }): string {
    const id = `foreign${this.#next++}`;
    this.sandboxes.set(id, { id, templateId: "base", metadata, envs: {}, startedAt: new Date(), state: "running" });
    return id;
  }

  /** Recorded calls of one method. */
  callsOf(method: string): FakeCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Kills every process still running (test teardown). */
  async close(): Promise<void> {
    for (const process of this.processes.values()) process.child.kill("SIGKILL");
    this.processes.clear();
  }

  async #call<T>(method: string, args: readonly unknown[], work: () => T | Promise<T>): Promise<T> {
    this.calls.push({ method, args });
    await Promise.resolve();
    const failure = this.#failures.find((candidate) => candidate.method === method && candidate.times > 0);
    if (failure) failure.times--;
    if (failure && !failure.afterWork) throw failure.error();
    const result = await work();
    if (failure?.afterWork) throw failure.error();
    return result;
  }

  #sandbox(sandboxId: string): FakeSandbox {
    const sandbox = this.sandboxes.get(sandboxId);
    if (!sandbox) throw sdkErrors.sandboxNotFound(sandboxId);
    return sandbox;
  }

  #info(sandbox: FakeSandbox): E2BSandboxInfo {
    return {
      sandboxId: sandbox.id,
      templateId: sandbox.templateId,
      metadata: { ...sandbox.metadata },
      startedAt: sandbox.startedAt,
      state: sandbox.state,
    };
  }

  #instance(sandboxId: string): E2BSandbox {
    const call = <T>(method: string, args: readonly unknown[], work: () => T | Promise<T>) => {
      this.#sandbox(sandboxId);
      return this.#call(method, args, work);
    };
    return {
      sandboxId,
      commands: {
        run: (command, options) =>
          call("commands.run", [command, options], () => this.#spawn(sandboxId, command, options)),
        list: (options) =>
          call("commands.list", [options], () =>
            [...this.processes.values()].map(
              (running): E2BProcessInfo => ({ pid: running.pid, cmd: "/bin/bash", args: [], envs: running.envs }),
            ),
          ),
        kill: (pid, options) =>
          call("commands.kill", [pid, options], () => {
            const process = this.processes.get(pid);
            process?.child.kill("SIGKILL");
            return process !== undefined;
          }),
      },
      files: {
        write: (files, options) =>
          call("files.write", [files, options], async () => {
            for (const file of files) {
              await mkdir(dirname(file.path), { recursive: true });
              await writeFile(file.path, new Uint8Array(file.data));
            }
            return files.map((file) => ({ name: basename(file.path), path: file.path }));
          }),
        read: (path, options) =>
          call("files.read", [path, options], async () => {
            try {
              return new Uint8Array(await readFile(path));
            } catch {
              throw sdkErrors.fileNotFound(path);
            }
          }),
        list: (path, options) =>
          call("files.list", [path, options], async () => {
            const names = await readdir(path).catch(() => {
              throw sdkErrors.fileNotFound(path);
            });
            return Promise.all(names.map((name) => this.#entry(join(path, name))));
          }),
        getInfo: (path, options) => call("files.getInfo", [path, options], () => this.#entry(path)),
        makeDir: (path, options) =>
          call("files.makeDir", [path, options], async () => (await mkdir(path, { recursive: true })) !== undefined),
        remove: (path, options) =>
          call("files.remove", [path, options], async () => {
            await stat(path).catch(() => {
              throw sdkErrors.fileNotFound(path);
            });
            await rm(path, { recursive: true, force: true });
          }),
      },
    };
  }

  async #entry(path: string): Promise<E2BEntryInfo> {
    const info = await stat(path).catch(() => {
      throw sdkErrors.fileNotFound(path);
    });
    return {
      name: basename(path),
      path,
      type: info.isDirectory() ? "dir" : "file",
      size: info.size,
      mode: info.mode,
      modifiedTime: info.mtime,
    };
  }

  /** Starts `bash -c command` for real; resolves once it runs, like `commands.run(..., { background: true })`. */
  #spawn(sandboxId: string, command: string, options: E2BRunOptions): E2BCommandHandle {
    const sandbox = this.#sandbox(sandboxId);
    const envs = { ...sandbox.envs, ...options.envs };
    const child = spawn("bash", ["-c", command], {
      cwd: options.cwd,
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", ...envs },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const pid = child.pid as number;
    this.processes.set(pid, { pid, child, envs });
    let stdout = "";
    let stderr = "";
    let disconnected = false;
    const pending: Promise<unknown>[] = [];
    child.stdout?.setEncoding("utf8").on("data", (data: string) => {
      stdout += data;
      if (!disconnected) pending.push(Promise.resolve(options.onStdout?.(data)));
    });
    child.stderr?.setEncoding("utf8").on("data", (data: string) => {
      stderr += data;
      if (!disconnected) pending.push(Promise.resolve(options.onStderr?.(data)));
    });
    const done = new Promise<E2BCommandResult>((resolve, reject) => {
      const timer = setTimeout(() => reject(sdkErrors.timeout()), options.timeoutMs);
      const onAbort = () => reject(new FakeSdkError("TimeoutError", "[canceled] the operation was aborted"));
      options.signal?.addEventListener("abort", onAbort, { once: true });
      child.on("close", async (code, signal) => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        this.processes.delete(pid);
        await Promise.all(pending);
        const result = { exitCode: code ?? (signal ? -1 : 0), stdout, stderr };
        if (result.exitCode === 0) resolve(result);
        else reject(Object.assign(new FakeSdkError("CommandExitError", `exit ${result.exitCode}`), result));
      });
    });
    done.catch(() => {});
    return {
      pid,
      wait: () => done,
      kill: async () => child.kill("SIGKILL"),
      disconnect: async () => {
        disconnected = true;
      },
    };
  }
}
