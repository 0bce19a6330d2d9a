/**
 * What the Agent37 emulator keeps about one instance, and the JSON the
 * hosting plane reports for it.
 *
 * @module
 */

import type { SandboxHandle, SandboxRuntime } from "@sandport/core";
import type { RegisteredSandbox, SandboxRegistry } from "../harness/sandbox-registry.js";
import type { InstanceAuth } from "./wire.js";

/** One public port as the instance object reports it (`public_ports[]`): a permanent, unauthenticated URL. */
export interface PublicPort {
  readonly port: number;
  readonly url: string;
  readonly prefix: string | null;
  /** Epoch seconds. */
  readonly created: number;
}

/** Agent37-specific state of one emulated instance. */
export interface Agent37InstanceData {
  /** The backend sandbox that does the real work. */
  readonly handle: SandboxHandle;
  readonly template: string;
  readonly name: string | null;
  readonly user: string | null;
  /** The instance URL (the emulator's origin and `/edge/<id>`). */
  readonly url: string;
  /** Epoch seconds. */
  readonly created: number;
  /** Ports exposed at create, each at its own unauthenticated URL. */
  readonly publicPorts: readonly PublicPort[];
}

/** One emulated instance: `state` is its status (`running`, `stopped`). */
export type Agent37Instance = RegisteredSandbox<Agent37InstanceData>;

/** The emulator's state and settings, shared by its route modules. */
export interface Agent37State {
  readonly apiKey: string;
  /** Where exec gives up on a command and answers 502 `provisioning_failed` (the command runs on). */
  readonly execCapMs: number;
  /** Bytes of each stream exec returns before it cuts and sets `truncated`. */
  readonly outputCapBytes: number;
  /** Which header the instance edge takes the key in. */
  readonly instanceAuth: InstanceAuth;
  /** The instance user's home directory: the instance path mapped onto the backend workspace. */
  readonly homeDirectory: string;
  readonly backend: SandboxRuntime;
  readonly registry: SandboxRegistry<Agent37InstanceData>;
  /** The emulator's origin, for instance URLs. */
  readonly origin: string;
  /** Every command exec received and started, in arrival order (a faulted request never gets here). */
  readonly executed: string[];
  /** True once the emulator is stopping: a create that finishes then undoes itself. */
  readonly stopping: boolean;
}

/** The instance object, as `GET /v1/instances/{id}` reports it. */
export function instanceJson(instance: Agent37Instance): Record<string, unknown> {
  const { data } = instance;
  return {
    id: instance.id,
    status: instance.state,
    status_reason: null,
    template: data.template,
    url: data.url,
    ports: [{ port: 3737, default: true, url: data.url }],
    public_ports: data.publicPorts.map((entry) => ({ ...entry })),
    user: data.user,
    name: data.name,
    metadata: Object.keys(instance.metadata).length === 0 ? null : { ...instance.metadata },
    resources: { cpu: 2, memory: 4096, disk: 10 },
    auto_sleep: false,
    idle_timeout_seconds: null,
    past_due: false,
    created: data.created,
  };
}
