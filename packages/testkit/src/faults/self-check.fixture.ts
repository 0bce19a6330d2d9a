// Not a test on its own: self-check.test.ts runs this file in a child `node --test` with
// WIRE_FAULTS_MODE set, and reads which cases passed. It runs the wire-fault suite against
// LocalRuntime (isolation "none") behind a fake provider whose "requests" take the suite's faults:
// `sound` maps every provider failure to a typed SandportError and honours deadlines; `untyped`
// throws the provider's raw errors; `hangs` ignores the call's deadline and its caller's signal;
// `short` ends a streamed command whose output was cut as if it had exited with what arrived.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe } from "node:test";
import {
  type ExecEvent,
  type ExecRequest,
  type OpOptions,
  type SandboxHandle,
  type SandboxRuntime,
  SandportError,
} from "@sandport/core";
import { LocalRuntime } from "@sandport/local";
import { FaultInjector } from "../emulators/harness/faults.js";
import type { MutableRequestRecord } from "../emulators/harness/request-log.js";
import type { EmulatedSandboxSummary, FaultRule, ProviderEmulator } from "../emulators/harness/types.js";
import { describeWireFaults } from "./index.js";
import { WIRE_FAULT_CASES, type WireFaultCase } from "./options.js";

const mode = process.env.WIRE_FAULTS_MODE ?? "sound";
/** The cases this fixture answers for; the rest need a provider with a search by launch key and pages. */
const CHECKED: readonly WireFaultCase[] = [
  "create-rate-limited",
  "create-past-deadline",
  "exec-refused",
  "exec-past-deadline",
  "stream-cut",
];

/** What a provider's transport raises: a status, or a connection that went away. */
class ProviderError extends Error {
  constructor(
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

/** Resolves after `ms`, early when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A provider in memory: each call is a "request" on a route, logged, and subject to the armed faults. */
class FakeProvider implements ProviderEmulator {
  readonly url = "fake://provider";
  readonly requests: MutableRequestRecord[] = [];
  readonly unknownRoutes: string[] = [];
  readonly live = new Map<string, SandboxHandle>();
  readonly #faults = new FaultInjector();

  /** Serves one request: `work` runs unless a fault refuses or drops it first. */
  async serve<T>(route: string, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    const record: MutableRequestRecord = {
      method: "CALL",
      path: route,
      route,
      status: 0,
      startedAt: Date.now(),
      headers: {},
    };
    this.requests.push(record);
    const fault = this.#faults.take(route);
    try {
      if (fault?.kind === "drop") throw new ProviderError(undefined, "socket hang up");
      if (fault?.kind === "latency") await pause(fault.ms, signal);
      if (signal?.aborted) throw new ProviderError(undefined, "the client went away");
      if (fault?.kind === "status") {
        record.status = fault.status;
        throw new ProviderError(fault.status, `HTTP ${fault.status}`);
      }
      const value = await work();
      if (fault?.kind === "lost-response" || fault?.kind === "drop-mid-stream") {
        throw new ProviderError(undefined, "socket hang up");
      }
      record.status = 200;
      return value;
    } finally {
      record.endedAt = Date.now();
    }
  }

  countRequests(route?: string | RegExp): number {
    return this.requests.filter((record) => route === undefined || record.route.match(route) !== null).length;
  }
  resetRequests(): void {
    this.requests.length = 0;
  }
  injectFault(rule: FaultRule): void {
    this.#faults.add(rule);
  }
  clearFaults(): void {
    this.#faults.clear();
  }
  liveSandboxes(): EmulatedSandboxSummary[] {
    return [...this.live.values()].map((handle) => ({
      id: handle.id,
      metadata: { ...handle.labels },
      foreign: false,
      state: "running",
    }));
  }
  seedForeignSandbox(): Promise<string> {
    return Promise.reject(new Error("the fake provider holds no foreign sandboxes"));
  }
  async stop(): Promise<void> {}
}

/** The provider error as the runtime reports it: typed when sound, raw when `untyped`. */
function reported(error: unknown): unknown {
  if (mode === "untyped" || !(error instanceof ProviderError)) return error;
  const code = error.status === 429 ? "RATE_LIMITED" : "PROVIDER_UNAVAILABLE";
  return new SandportError({ code, provider: "fake", message: error.message, cause: error });
}

/** Runs a request under the call's deadline and signal (unless `hangs`), reporting its failure. */
async function request<T>(route: string, op: OpOptions | undefined, work: () => Promise<T>): Promise<T> {
  if (mode === "hangs") return provider.serve(route, undefined, work).catch((error) => Promise.reject(reported(error)));
  const controller = new AbortController();
  const deadline = op?.timeoutMs === undefined ? undefined : setTimeout(() => controller.abort(), op.timeoutMs);
  op?.signal?.addEventListener("abort", () => controller.abort());
  const gaveUp = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => {
      const code = op?.signal?.aborted ? "ABORTED" : "DEADLINE_EXCEEDED";
      reject(new SandportError({ code, provider: "fake", message: `${route}: ${code}` }));
    });
  });
  try {
    return await Promise.race([
      provider.serve(route, controller.signal, work).catch((error) => Promise.reject(reported(error))),
      gaveUp,
    ]);
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * `execStream` over the fake provider: a `drop-mid-stream` on the `stream` route cuts the output
 * after its first chunk. The stream then fails typed, or (`short`) ends with an exited event
 * carrying only what arrived, as a careless adapter would.
 */
async function* streamed(handle: LocalHandle, exec: ExecRequest, op?: OpOptions): AsyncIterable<ExecEvent> {
  const cut = await request("stream", op, async () => undefined).then(
    () => false,
    () => true,
  );
  let stdout = "";
  for await (const event of local.execStream(handle, exec, op)) {
    if (cut && event.type === "stdout" && stdout !== "") {
      if (mode !== "short") {
        throw new SandportError({ code: "PROVIDER_UNAVAILABLE", provider: "fake", message: "the output was cut" });
      }
      const result = { exitCode: 0, stdout, stderr: "", truncated: false, timedOut: false, durationMs: 0 };
      yield { type: "exited", result };
      return;
    }
    if (event.type === "stdout") stdout += event.data;
    yield event;
  }
}

const root = mkdtempSync(join(tmpdir(), "sandport-wire-faults-"));
const local = new LocalRuntime({ root, isolation: "none" });
type LocalHandle = Parameters<LocalRuntime["destroy"]>[0];
const provider = new FakeProvider();
const overrides: Partial<SandboxRuntime> = {
  launch: (spec, op) =>
    request("create", op, async () => {
      const handle = await local.launch(spec);
      provider.live.set(handle.id, handle);
      return handle;
    }),
  destroy: (handle, op) =>
    request("delete", op, async () => {
      await local.destroy(handle as LocalHandle);
      provider.live.delete(handle.id);
    }),
  exec: (handle, exec, op) => request("exec", op, () => local.exec(handle as LocalHandle, exec)),
  execStream: (handle, exec, op) => streamed(handle as LocalHandle, exec, op),
};
const runtime = new Proxy(local, {
  get(target, property, receiver) {
    if (property === "settle") return async () => [];
    const own = overrides[property as keyof SandboxRuntime];
    if (own) return own;
    const value = Reflect.get(target, property, receiver);
    return typeof value === "function" ? value.bind(target) : value;
  },
}) as unknown as SandboxRuntime & { settle(): Promise<SandportError[]> };

describe(`a ${mode} runtime`, () => {
  after(() => rmSync(root, { recursive: true, force: true }));
  describeWireFaults({
    runtime: () => runtime,
    emulator: () => provider,
    routes: { create: "create", list: "list", delete: "delete", exec: "exec", stream: "stream" },
    // Past the 1 600 ms the `*-past-deadline` cases delay a request by (4 × the 400 ms deadline).
    hangMs: 1_000,
    skip: Object.fromEntries(
      WIRE_FAULT_CASES.filter((id) => !CHECKED.includes(id)).map((id) => [id, "not answered by this fixture"]),
    ),
  });
});
