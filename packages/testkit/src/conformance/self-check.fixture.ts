// Not a test on its own: self-check.test.ts runs this file in a child `node --test` and expects it to FAIL.
// It runs the conformance suite against LocalRuntime (isolation "none") wrapped so that several
// behaviours are deliberately broken, each of which one named check must catch.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ExecRequest,
  type FileInput,
  type OpOptions,
  type SandboxHandle,
  type SandboxRuntime,
  SandportError,
} from "@sandport/core";
import { LocalRuntime } from "@sandport/local";
import { describeRuntimeConformance } from "./index.js";

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** This process's environment, as a careless adapter would forward it. */
function hostEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        VALID_NAME.test(entry[0]) && entry[1] !== undefined && !entry[1].includes("\0"),
    ),
  );
}

/** "Sanitises" a path by dropping `..` segments instead of refusing it. */
function dropDotDot(path: string): string {
  return path.replaceAll("../", "");
}

/** The call options without a signal that is not yet aborted: the command never hears of a later abort. */
function deaf(op: OpOptions | undefined): OpOptions | undefined {
  if (!op?.signal || op.signal.aborted) return op;
  const { signal: _, ...rest } = op;
  return rest;
}

/** Rejects `ABORTED` as soon as `signal` aborts, leaving the call (and its command) running. */
function abandonOnAbort<T>(call: Promise<T>, signal: AbortSignal): Promise<T> {
  call.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const onAbort = () =>
      reject(new SandportError({ code: "ABORTED", provider: "local", message: "aborted", cause: signal.reason }));
    signal.addEventListener("abort", onAbort, { once: true });
    call.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Wraps a runtime and breaks, on purpose: env isolation (the host env leaks into
 * exec and execStream), cwd (ignored by exec), aborts (exec rejects but leaves
 * the command running), path confinement (`..` silently dropped by
 * readFile/writeFiles), non-zero exits (thrown), and async exec (`commandLogs`
 * missing, so the group is half-implemented).
 */
export function breakRuntime<H extends SandboxHandle>(runtime: SandboxRuntime<H>): SandboxRuntime<H> {
  const leak = (request: ExecRequest): ExecRequest => ({ ...request, env: { ...hostEnv(), ...request.env } });
  const overrides: Partial<Record<keyof SandboxRuntime<H>, unknown>> = {
    async exec(handle: H, request: ExecRequest, op?: OpOptions) {
      const call = runtime.exec(handle, { ...leak(request), cwd: undefined } as ExecRequest, deaf(op));
      const result = await (op?.signal ? abandonOnAbort(call, op.signal) : call);
      if (result.exitCode !== null && result.exitCode !== 0) throw new Error(`command exited ${result.exitCode}`);
      return result;
    },
    execStream: (handle: H, request: ExecRequest, op?: OpOptions) => runtime.execStream!(handle, leak(request), op),
    readFile: (handle: H, path: string, op?: OpOptions) => runtime.readFile(handle, dropDotDot(path), op),
    writeFiles: (handle: H, files: readonly FileInput[], op?: OpOptions) =>
      runtime.writeFiles(
        handle,
        files.map((file) => ({ ...file, path: dropDotDot(file.path) })),
        op,
      ),
    commandLogs: undefined,
  };
  return new Proxy(runtime, {
    get(target, property, receiver) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof SandboxRuntime<H>];
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describeRuntimeConformance({
  name: "deliberately broken LocalRuntime",
  createRuntime: () => {
    const root = mkdtempSync(join(tmpdir(), "sandport-conformance-broken-"));
    return {
      runtime: breakRuntime(new LocalRuntime({ root, isolation: "none", owner: "broken" })),
      cleanup: () => rmSync(root, { recursive: true, force: true }),
    };
  },
  timeouts: { promptMs: 2_000 },
});
