import {
  type Labels,
  type ProbeParameters,
  type SandboxHandle,
  type SandboxRuntime,
  SandportError,
  sleep,
} from "@sandport/core";

/** What a probe needs: the runtime, the labels that mark the run's sandboxes, and how long "idle" is. */
export interface ProbeContext {
  readonly runtime: SandboxRuntime;
  readonly labels: Labels;
  /** Milliseconds the warm-lease probe leaves a sandbox idle. */
  readonly idleMs: number;
  readonly signal: AbortSignal;
}

/**
 * A probe establishes one capability on a live provider: it resolves what it
 * saw (`true` or a mode), or a sentence saying what it could not see. It
 * throws when the provider fails; either way the canary records it as failed.
 */
export type Probe = (context: ProbeContext) => Promise<true | string | { readonly notSeen: string }>;

/** The parameters each probe runs with, as its evidence record keeps them (only the warm-lease probe has any). */
export function probeParameters(capability: string, context: ProbeContext): ProbeParameters | undefined {
  return capability === "warmLease" ? { idleMs: context.idleMs } : undefined;
}

/** Runs `work` on a fresh labelled sandbox and always destroys it. */
async function withSandbox<T>(
  context: ProbeContext,
  probe: string,
  work: (handle: SandboxHandle) => Promise<T>,
): Promise<T> {
  const { runtime, signal } = context;
  const handle = await runtime.launch({ labels: { ...context.labels, "canary-probe": probe } }, { signal });
  try {
    return await work(handle);
  } finally {
    await runtime.destroy(handle, { signal });
  }
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

async function runsTrue(runtime: SandboxRuntime, handle: SandboxHandle, signal: AbortSignal): Promise<boolean> {
  return (await runtime.exec(handle, { argv: ["true"] }, { signal })).exitCode === 0;
}

/**
 * The probes, by the capability each establishes. Only capabilities a runtime
 * declares `unknown` are probed; nothing here can observe an absence.
 */
export const PROBES: Readonly<Partial<Record<string, Probe>>> = {
  /** Destroy, then the sandbox is found neither by id nor by label. */
  verifiedCleanup: async ({ runtime, labels, signal }) => {
    const mark = { ...labels, "canary-probe": "verified-cleanup" };
    const handle = await runtime.launch({ labels: mark }, { signal });
    await runtime.destroy(handle, { signal });
    if (runtime.getById && (await runtime.getById(handle.id, { signal })) !== undefined) {
      return { notSeen: "getById still found the destroyed sandbox" };
    }
    if (runtime.findByLabels && (await runtime.findByLabels(mark, { signal })).length > 0) {
      return { notSeen: "findByLabels still listed the destroyed sandbox" };
    }
    return true;
  },
  /** A sandbox left idle is found again by its labels and still runs commands. */
  warmLease: async (context) => {
    const { runtime, signal } = context;
    if (!runtime.findByLabels) return { notSeen: "the runtime has no findByLabels" };
    return withSandbox(context, "warm-lease", async (handle) => {
      await sleep(context.idleMs, signal);
      const [found] = await runtime.findByLabels!({ ...handle.labels }, { signal });
      if (!found) return { notSeen: `not found by its labels after ${context.idleMs} ms idle` };
      return (await runsTrue(runtime, found, signal)) ? true : { notSeen: "`true` failed after the idle time" };
    });
  },
  /** Stop then start, and the sandbox runs commands again. */
  lifecycle: async (context) => {
    const { runtime, signal } = context;
    if (!runtime.stop || !runtime.start) return { notSeen: "the runtime has no stop/start" };
    return withSandbox(context, "lifecycle", async (handle) => {
      await runtime.stop!(handle, { signal });
      await runtime.start!(handle, { signal });
      return (await runsTrue(runtime, handle, signal)) ? true : { notSeen: "`true` failed after stop and start" };
    });
  },
  /** Whether stderr comes back apart from stdout. */
  outputStreams: (context) =>
    withSandbox(context, "output-streams", async (handle) => {
      const result = await context.runtime.exec(
        handle,
        { shell: "echo out; echo err >&2" },
        { signal: context.signal },
      );
      if (result.stdout === "out\n" && result.stderr === "err\n") return "separate";
      if (result.stderr === "" && result.stdout.includes("out") && result.stdout.includes("err")) return "combined";
      return { notSeen: `unexpected output ${JSON.stringify(result.stdout)} / ${JSON.stringify(result.stderr)}` };
    }),
  /**
   * What survives stop and start: a file written before, and a shell loop
   * left running before (it records its pid; afterwards `kill -0` and its
   * `/proc` command line say whether that very process is still there, with
   * no waiting window to guess from). Both: `filesystem+memory`; the file
   * only: `filesystem`; neither: `nothing`. It assumes commands share a PID
   * namespace, as on a provider's machine (the local runtime, which gives
   * each command its own, declares this mode and is never probed).
   */
  stopKeeps: async (context) => {
    const { runtime, signal } = context;
    if (!runtime.stop || !runtime.start) return { notSeen: "the runtime has no stop/start" };
    if (!runtime.spawn && !runtime.startCommand)
      return { notSeen: "no spawn or startCommand to leave a process running" };
    return withSandbox(context, "stop-keeps", async (handle) => {
      await runtime.writeFiles(handle, [{ path: "stop-keeps/kept.txt", content: "kept" }], { signal });
      const loop = "echo $$ > stop-keeps/pid; while :; do sleep 1; done # sandport-stop-keeps";
      // An async command needs no kill: the sandbox's destroy stops it.
      const spawned = runtime.spawn ? await runtime.spawn(handle, { shell: loop }, { signal }) : undefined;
      if (!spawned) await runtime.startCommand!(handle, { shell: loop, sessionId: "stop-keeps" }, { signal });
      try {
        const started = await runtime.exec(
          handle,
          { shell: "for i in $(seq 300); do test -s stop-keeps/pid && exit 0; sleep 0.1; done; exit 1" },
          { signal },
        );
        if (started.exitCode !== 0) return { notSeen: "the loop never started" };
        await runtime.stop!(handle, { signal });
        await runtime.start!(handle, { signal });
        const alive = await runtime.exec(
          handle,
          { shell: 'pid=$(cat stop-keeps/pid) && kill -0 "$pid" && grep -q sandport-stop-keeps "/proc/$pid/cmdline"' },
          { signal },
        );
        let kept: boolean;
        try {
          kept = decode(await runtime.readFile(handle, "stop-keeps/kept.txt", { signal })) === "kept";
        } catch (error) {
          if (!SandportError.hasCode(error, "NOT_FOUND")) throw error;
          kept = false;
        }
        if (alive.exitCode === 0)
          return kept ? "filesystem+memory" : { notSeen: "the process survived, the file did not" };
        return kept ? "filesystem" : "nothing";
      } finally {
        await spawned?.kill().catch(() => {});
      }
    });
  },
  /** Whether files survive stop and start. */
  filesystem: async (context) => {
    const { runtime, signal } = context;
    if (!runtime.stop || !runtime.start) return { notSeen: "the runtime has no stop/start" };
    return withSandbox(context, "filesystem", async (handle) => {
      await runtime.writeFiles(handle, [{ path: "kept.txt", content: "kept" }], { signal });
      await runtime.stop!(handle, { signal });
      await runtime.start!(handle, { signal });
      try {
        return decode(await runtime.readFile(handle, "kept.txt", { signal })) === "kept" ? "persistent" : "ephemeral";
      } catch (error) {
        if (SandportError.hasCode(error, "NOT_FOUND")) return "ephemeral";
        throw error;
      }
    });
  },
};
