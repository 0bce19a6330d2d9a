// Probes that turn a declared `unknown` into an observation. Each probe runs
// only against a live provider and returns the observed value, or undefined
// when it could not establish anything. Nothing here ever observes an absence.

/** Runs `work` on a fresh labelled sandbox and always destroys it. */
async function withSandbox(runtime, label, work) {
  const handle = await runtime.launch({ labels: { "canary-probe": label } });
  try {
    return await work(handle);
  } finally {
    await runtime.destroy(handle).catch(() => {});
  }
}

const decode = (bytes) => new TextDecoder().decode(bytes);

/** Declared-capability probes, by capability name. */
export const PROBES = {
  /** destroy, then the sandbox is not found by id or by label. */
  verifiedCleanup: async (runtime) => {
    const label = `cleanup-${Date.now()}`;
    const handle = await runtime.launch({ labels: { "canary-probe": label } });
    await runtime.destroy(handle);
    const byId = runtime.getById ? await runtime.getById(handle.id) : undefined;
    const byLabel = runtime.findByLabels ? await runtime.findByLabels({ "canary-probe": label }) : [];
    return byId === undefined && byLabel.length === 0 ? true : undefined;
  },
  /** An idle sandbox is found again by its labels and still runs commands. */
  warmLease: async (runtime) => {
    if (!runtime.findByLabels) return undefined;
    const label = `warm-${Date.now()}`;
    return withSandbox(runtime, label, async () => {
      await new Promise((resolve) => setTimeout(resolve, 30_000));
      const [found] = await runtime.findByLabels({ "canary-probe": label });
      if (!found) return undefined;
      const result = await runtime.exec(found, { argv: ["true"] });
      return result.exitCode === 0 ? true : undefined;
    });
  },
  /** stop then start, and the sandbox runs commands again. */
  lifecycle: async (runtime) => {
    if (!runtime.stop || !runtime.start) return undefined;
    return withSandbox(runtime, "lifecycle", async (handle) => {
      await runtime.stop(handle);
      await runtime.start(handle);
      return (await runtime.exec(handle, { argv: ["true"] })).exitCode === 0 ? true : undefined;
    });
  },
};

/** Mode probes, by mode name. */
export const MODE_PROBES = {
  /** Whether stderr comes back apart from stdout. */
  outputStreams: (runtime) =>
    withSandbox(runtime, "streams", async (handle) => {
      const result = await runtime.exec(handle, { shell: "echo out; echo err >&2" });
      if (result.stdout === "out\n" && result.stderr === "err\n") return "separate";
      if (result.stderr === "" && result.stdout.includes("out") && result.stdout.includes("err")) return "combined";
      return undefined;
    }),
  /** Whether files survive stop/start. */
  filesystem: async (runtime) => {
    if (!runtime.stop || !runtime.start) return undefined;
    return withSandbox(runtime, "filesystem", async (handle) => {
      await runtime.writeFiles(handle, [{ path: "kept.txt", content: "kept" }]);
      await runtime.stop(handle);
      await runtime.start(handle);
      return decode(await runtime.readFile(handle, "kept.txt")) === "kept" ? "persistent" : "ephemeral";
    });
  },
};
