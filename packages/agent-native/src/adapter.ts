import { randomBytes, randomUUID } from "node:crypto";
import {
  checkBridgeOptions,
  type ExecResult,
  keyList,
  type LaunchSpec,
  type SandboxHandle,
  type SandboxRuntime,
  unsupported,
} from "@sandport/core";
import type { AgentNativeRunRequest, AgentNativeRunResult, AgentNativeSandboxAdapter } from "./adapter-types.js";
import { HostTunnel } from "./host-tunnel.js";
import { LoopbackProbe } from "./loopback-probe.js";
import { RELAY_SOURCE } from "./relay-source.js";

/** The sandbox port the bridge relay listens on for the host, when none is given. */
export const DEFAULT_TUNNEL_PORT = 47_123;

/** What {@link SandportSandboxAdapter} is built from. */
export interface SandportSandboxAdapterOptions<H extends SandboxHandle = SandboxHandle> {
  /** The runtime `run-code` runs in. */
  readonly runtime: SandboxRuntime<H>;
  /**
   * A sandbox you hold: every run uses it (one at a time), in a fresh
   * directory removed afterwards. Without it, each run launches its own
   * sandbox and destroys it afterwards, as agent-native's default adapter
   * uses a fresh temporary directory.
   */
  readonly handle?: H;
  /** How a run's sandbox is launched, when there is no `handle`. The tunnel port is added to `ports`. */
  readonly launch?: LaunchSpec;
  /** The Node executable inside the sandbox. Default: `"node"`. */
  readonly node?: string;
  /**
   * How the module reaches the parent's bridge. `"tunnel"` (the default): a
   * relay in the sandbox listens on its 127.0.0.1:bridgePort and runs the
   * module, and the host reaches the relay through the runtime's
   * `portEndpoint`, so the sandbox's network stays closed. Where the sandbox
   * turns out to share the host's loopback (`LocalRuntime` with `isolation:
   * "none"`, or with `hostNetwork` and a launch with `network: true`), the host's bridge already
   * holds that port: the relay finds it (see `LoopbackProbe`) and runs the
   * module directly instead. `"host-network"`: no relay and no probe, for
   * runtimes whose sandboxes always share the host's loopback, with or
   * without `portEndpoint`.
   */
  readonly bridge?: "tunnel" | "host-network";
  /** The sandbox port the relay listens on for the host. Default: {@link DEFAULT_TUNNEL_PORT}. */
  readonly tunnelPort?: number;
  /** How long to wait for the relay to answer once started, in milliseconds. Default: 10 000. */
  readonly relayStartMs?: number;
}

/** Every key of {@link SandportSandboxAdapterOptions}; any other is refused, naming the nearest known one. */
export const SANDBOX_ADAPTER_OPTION_KEYS = keyList<SandportSandboxAdapterOptions>({
  runtime: true,
  handle: true,
  launch: true,
  node: true,
  bridge: true,
  tunnelPort: true,
  relayStartMs: true,
});

/**
 * agent-native's `SandboxAdapter` over a Sandport runtime: register it with
 * `registerSandboxAdapter(new SandportSandboxAdapter({ runtime }))` and
 * every `run-code` call runs its prepared module in a sandbox with `node`,
 * the scrubbed env (nothing of the host's added), and `timeoutMs` as the run
 * budget. Bridge calls (`appAction`, `providerFetch`, ...) reach the parent
 * through the relay tunnel (see `bridge`), which runs the module as its child.
 * A runtime without `portEndpoint`, which the tunnel needs, is refused with
 * `UNSUPPORTED` before anything is launched.
 */
export class SandportSandboxAdapter<H extends SandboxHandle = SandboxHandle> implements AgentNativeSandboxAdapter {
  /** `"sandport:<provider>"`. */
  readonly id: string;
  readonly #options: SandportSandboxAdapterOptions<H>;
  #queue: Promise<unknown> = Promise.resolve();

  /** Refuses (`INVALID_REQUEST`) options with an unknown key, naming the nearest known one. */
  constructor(options: SandportSandboxAdapterOptions<H>) {
    checkBridgeOptions(options, SANDBOX_ADAPTER_OPTION_KEYS, "SandportSandboxAdapter options");
    this.#options = options;
    this.id = `sandport:${options.runtime.provider}`;
  }

  /** Runs one prepared module. A killed run keeps `exitCode: null`, as agent-native's result type allows. */
  async run(request: AgentNativeRunRequest): Promise<AgentNativeRunResult> {
    this.#refuseUnsupported();
    if (!this.#options.handle) return this.#runIn(request, undefined);
    // A held sandbox has one tunnel port: its runs go one at a time.
    const run = this.#queue.then(() => this.#runIn(request, this.#options.handle));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #refuseUnsupported(): void {
    const { runtime } = this.#options;
    if (this.#options.bridge === "host-network") return;
    if (typeof runtime.portEndpoint !== "function") {
      throw unsupported(
        runtime.provider,
        "run-code's bridge tunnel",
        "it has no portEndpoint, so the module could not reach the parent's bridge",
      );
    }
  }

  async #runIn(request: AgentNativeRunRequest, held: H | undefined): Promise<AgentNativeRunResult> {
    const { runtime } = this.#options;
    const tunnelled = this.#options.bridge !== "host-network";
    const tunnelPort = this.#options.tunnelPort ?? DEFAULT_TUNNEL_PORT;
    const launch = this.#options.launch ?? {};
    const handle =
      held ?? (await runtime.launch(tunnelled ? { ...launch, ports: [...(launch.ports ?? []), tunnelPort] } : launch));
    const directory = `agent-native-run-${randomUUID()}`;
    const node = this.#options.node ?? "node";
    let tunnel: HostTunnel | undefined;
    let probe: LoopbackProbe | undefined;
    let connecting: Promise<void> | undefined;
    try {
      await runtime.writeFiles(handle, [
        { path: `${directory}/module.mjs`, content: request.moduleSource },
        ...(tunnelled ? [{ path: `${directory}/relay.mjs`, content: RELAY_SOURCE }] : []),
      ]);
      const options = { cwd: directory, timeoutMs: request.timeoutMs };
      let execution: Promise<ExecResult>;
      if (tunnelled) {
        const token = randomBytes(24).toString("hex");
        const portEndpoint = runtime.portEndpoint as NonNullable<SandboxRuntime<H>["portEndpoint"]>;
        tunnel = new HostTunnel(await portEndpoint.call(runtime, handle, tunnelPort), token, request.bridgePort);
        probe = await LoopbackProbe.open();
        execution = runtime.exec(handle, {
          ...options,
          argv: [node, "relay.mjs", String(request.bridgePort), String(tunnelPort), String(probe.port), "module.mjs"],
          env: {
            ...request.env,
            SANDPORT_TUNNEL_TOKEN: token,
            SANDPORT_PROBE_QUESTION: probe.question,
            SANDPORT_PROBE_ANSWER: probe.answer,
          },
        });
        const started = tunnel;
        // A sandbox on the host's loopback: the relay runs the module directly, and there is no tunnel to wait for.
        void probe.reached.then(() => started.stop());
        connecting = started.ready(this.#options.relayStartMs ?? 10_000).then(() => started.start());
        // A relay that never answered leaves the module's bridge calls unanswered: they fail in the module.
        connecting.catch(() => undefined);
      } else {
        execution = runtime.exec(handle, { ...options, argv: [node, "module.mjs"], env: request.env });
      }
      const result = await execution;
      return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode, timedOut: result.timedOut };
    } finally {
      await tunnel?.stop();
      await probe?.close();
      if (held === undefined) await runtime.destroy(handle);
      else await runtime.remove?.(handle, directory);
    }
  }
}
