import type { SandboxRuntime, SnapshotRef } from "@sandport/core";
import type { PortListeners } from "../harness/port-listeners.js";
import type { SandboxRegistry } from "../harness/sandbox-registry.js";
import type { ModalAuth } from "./auth.js";
import type { GrpcCallContext, MethodHandler, WireJson } from "./grpc-server.js";
import type { OutboundNetwork } from "./network-access.js";
import type { SandboxPaths } from "./paths.js";
import type { EmulatedSandbox, SandboxEnd } from "./sandbox.js";
import type { ModalState } from "./state.js";
import type { ModalWire } from "./wire-definitions.js";

/** The two ports: Modal's API server and the (per-worker, here shared) task command router. */
export type ModalListener = "controlPlane" | "commandRouter";

/** What a new sandbox gets; see `SandboxSettings`. */
export interface CreateSandboxInput {
  readonly appId: string;
  readonly environment: string;
  readonly name: string | undefined;
  readonly imageId: string;
  /** The backend snapshot the workspace starts from (an image that is a filesystem snapshot). */
  readonly from?: SnapshotRef;
  readonly env: Record<string, string>;
  readonly workdir: string;
  readonly timeoutSecs: number;
  readonly idleTimeoutSecs: number | undefined;
  readonly tags: Record<string, string>;
  /** `networkAccess`: open, blocked, or an outbound allowlist (see `network-access.ts`). */
  readonly network: OutboundNetwork;
  /** The hard CPU limit (`milliCpuMax`, the SDK's `cpuLimit`), enforced by the backend. */
  readonly cpus: number | undefined;
  /** The hard memory limit (`memoryMbMax`, the SDK's `memoryLimitMiB`), enforced by the backend. */
  readonly memoryMiB: number | undefined;
  /** The reservations (`milliCpu`, `memoryMb`: the SDK's `cpu`, `memoryMiB`): kept, never a ceiling. */
  readonly reserved?: { readonly cpus?: number; readonly memoryMiB?: number };
  /** Container ports opened as tunnels (`openPorts`), each reachable through the backend's `portEndpoint`. */
  readonly ports: readonly TunnelPort[];
  readonly foreign: boolean;
}

/** One port of `openPorts`: TLS-encrypted (`encryptedPorts`, `h2Ports`) or plain TCP (`unencryptedPorts`). */
export interface TunnelPort {
  readonly port: number;
  readonly unencrypted: boolean;
}

/** The emulator's state and operations, shared by its handler modules. */
export interface ModalContext {
  readonly wire: ModalWire;
  readonly auth: ModalAuth;
  readonly backend: SandboxRuntime;
  readonly paths: SandboxPaths;
  readonly state: ModalState;
  /** The running sandboxes (ended ones stay in `state.sandboxes` only). */
  readonly registry: SandboxRegistry<EmulatedSandbox>;
  /** Largest page `SandboxListV2` answers with. */
  readonly pageSize: number;
  /** The URL handed out as the command router's (`https://127.0.0.1:<port>`; the SDK dials it in plaintext). */
  readonly commandRouterUrl: string;
  /** The listeners that stand for Modal's tunnels, by sandbox (see `tunnels.ts`). */
  readonly tunnels: PortListeners;
  createSandbox(input: CreateSandboxInput): Promise<EmulatedSandbox>;
  /** End a running sandbox: kill its execs, destroy its backend workspace. */
  endSandbox(sandbox: EmulatedSandbox, status: SandboxEnd, reason: string): Promise<void>;
  /** Handle a method of the service served on `listener`. */
  implement(listener: ModalListener, method: string, handler: MethodHandler): void;
  /** Log a feature of a known route that the emulator does not have (in `unknownRoutes`). */
  logNotEmulated(route: string, feature: string): void;
}

/** A unary handler in the shape `implement` takes. */
export function unary(
  handle: (request: WireJson, call: GrpcCallContext) => Promise<WireJson> | WireJson,
): MethodHandler {
  return { kind: "unary", handle: async (request, call) => handle(request, call) };
}
