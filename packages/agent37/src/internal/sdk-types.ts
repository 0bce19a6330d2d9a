/**
 * The slice of Agent37's HTTP API the adapter uses, as it answers on the wire
 * (the hosting/instance-URL generation of its docs). The only place the
 * wire shapes are named.
 *
 * @module
 */

/** One entry of an instance's `ports`: the template's ports and their URLs. */
export interface Agent37Port {
  readonly port: number;
  readonly default?: boolean;
  readonly url: string | null;
}

/** The instance object (`GET /v1/instances/{id}`); only `id` and `status` are relied on being present. */
export interface Agent37Instance {
  /** 10 lowercase alphanumerics: also the instance URL's DNS label. */
  readonly id: string;
  /** `provisioning`, `running`, `stopping`, `stopped`, `starting`, `sleeping`, … (unknown values pass). */
  readonly status: string;
  /** The instance URL for the template's default port; `null` when the template has no ports. */
  readonly url?: string | null;
  readonly ports?: readonly Agent37Port[];
  /** Ports exposed at create, each at a permanent unauthenticated URL. */
  readonly public_ports?: readonly Agent37Port[];
  /** Stored, never interpreted: where Sandport keeps its labels. */
  readonly metadata?: Readonly<Record<string, string>> | null;
  readonly template?: string;
  /** Epoch seconds. */
  readonly created?: number;
}

/** `POST /v1/instances` body (every field optional on the wire). */
export interface Agent37CreateRequest {
  readonly template?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly env?: Readonly<Record<string, string>>;
  readonly name?: string;
  /** Ports to expose at permanent, unauthenticated URLs. */
  readonly public_ports?: readonly { readonly port: number }[];
}

/** `POST /v1/instances/{id}/exec`'s answer. */
export interface Agent37ExecReply {
  /** Absent or not a number: the outcome is unknown (never read as success). */
  readonly exit_code?: number | null;
  readonly stdout?: string;
  readonly stderr?: string;
  /** Output was cut at the service's cap. */
  readonly truncated?: boolean;
}

/** One entry of `GET /v1/files?path=` on the instance plane. */
export interface Agent37FileEntry {
  readonly name: string;
  /** Absolute instance path. */
  readonly path: string;
  readonly type: "file" | "directory" | "symlink" | string;
  /** Bytes, or `null` (directories). */
  readonly size: number | null;
}
