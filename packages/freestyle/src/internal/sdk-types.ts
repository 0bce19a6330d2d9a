/**
 * The slice of the `freestyle` SDK (0.2.x, the `/v5` API) this adapter uses,
 * described structurally.
 *
 * Nothing outside `sdk.ts` imports `freestyle` at runtime; everything else
 * talks to these interfaces, so a test can hand in a fake and a missing SDK
 * only fails at first use. `sdk-types.test.ts` checks at compile time that the
 * real SDK still satisfies every member declared here.
 *
 * @module
 */

/**
 * What every client is built with. Each field the SDK would otherwise fill in
 * by itself is always present: `apiKey` (else `FREESTYLE_API_KEY`), `baseUrl`
 * (else `https://api.freestyle.sh`) and `fetch` (else an HTTP/2 transport
 * through an optionally loaded `undici`).
 */
export interface FreestyleClientOptions {
  readonly apiKey: string;
  readonly baseUrl: string;
  /** Carries every request of the client, so the caller's deadline and signal reach each one. */
  readonly fetch: typeof fetch;
}

/** A VM as the API reports it (the fields this adapter reads). */
export interface FreestyleVmData {
  readonly id: string;
  /** `starting`, `running`, `pausing`, `paused` or `stopped`. */
  readonly state: string;
  readonly slug?: string | null;
  readonly metadata: Record<string, string>;
  /** ISO-8601. */
  readonly createdAt: string;
  /** The VM's size: vCPUs, memory and disk in MiB. */
  readonly resources?: { readonly cpu?: number; readonly memory?: number; readonly storage?: number } | null;
}

/**
 * One firewall rule of a create: `{ source: {} }` is the VM being created; the
 * destination is the public Internet or one address range (IPv4 or IPv6).
 */
export interface FreestyleFirewallRule {
  readonly action: "allow";
  readonly source: Record<string, never>;
  readonly destination: { readonly public: true } | { readonly cidr: string };
}

/** Options of `vms.create` as this adapter sends them: every lifetime field explicit. */
export interface FreestyleCreateOptions {
  readonly snapshotId: string;
  readonly slug: string;
  readonly metadata: Record<string, string>;
  /** Delete this long after creation, whatever the VM is doing. */
  readonly ttlSeconds: number;
  /** `-1`: never paused for lack of network traffic. */
  readonly idleTimeoutSeconds: number;
  /** `-1`: never deleted for not running (or the plan's cap). */
  readonly autoDeleteSeconds: number;
  /** `-1`: no cap on one run. */
  readonly maxRunSeconds: number;
  /** Required by the API: `{ rules: [] }` is a VM with no network access. */
  readonly firewall: { readonly rules: FreestyleFirewallRule[] };
}

/** What `vms.create` resolves with (the fields this adapter reads). */
export interface FreestyleCreated {
  readonly vmId: string;
  readonly data: FreestyleVmData;
}

/** Options of `vms.list`. */
export interface FreestyleListOptions {
  /** `key:value,key2:value2`: every pair must match. */
  readonly metadata?: string;
  readonly limit: number;
  readonly offset: number;
}

/** One page of `vms.list`. */
export interface FreestyleListResult {
  readonly vms: FreestyleVmData[];
  /** How many VMs match the filter, over every page. */
  readonly totalCount: number;
}

/** The body of `exec-await` as this adapter sends it. */
export interface FreestyleExecOptions {
  /** Run through the guest's shell, starting in the Linux user's home directory. */
  readonly command: string;
  readonly linuxUser: string;
  /** The command's own timeout. Always sent: the API's default is 30 s. */
  readonly timeoutMs: number;
  readonly env?: Record<string, string>;
  /** Base64, at most 1 MiB decoded. */
  readonly stdin?: string;
}

/** What `exec-await` answers. */
export interface FreestyleExecResult {
  readonly stdout?: string | null;
  readonly stderr?: string | null;
  /** `null` when the command's timeout killed it. */
  readonly statusCode?: number | null;
}

/** One entry of `fs.readDir`. */
export interface FreestyleDirEntry {
  readonly name: string;
  /** `file`, `directory` or `symlink`. */
  readonly kind: string;
}

/** What `fs.stat` reports; a symlink is reported as itself. */
export interface FreestyleFileStat {
  readonly size: number;
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly isSymlink: boolean;
  /** Octal, e.g. `0644`. */
  readonly permissions: string;
  /** ISO-8601. */
  readonly modified: string;
}

/** `vm.fs`: raw bytes both ways; paths absolute. */
export interface FreestyleFilesystem {
  writeFile(path: string, content: Uint8Array, options: { mode: number; signal?: AbortSignal }): Promise<void>;
  readFile(path: string, options: { signal?: AbortSignal }): Promise<Uint8Array>;
  readDir(path: string): Promise<FreestyleDirEntry[]>;
  mkdir(path: string): Promise<void>;
  remove(path: string): Promise<void>;
  stat(path: string): Promise<FreestyleFileStat>;
}

/** A snapshot as the API reports it (the fields this adapter reads). */
export interface FreestyleSnapshotData {
  /** `sh-…`. */
  readonly id: string;
  readonly sourceVmId?: string | null;
  readonly slug?: string | null;
  readonly displayName?: string | null;
  /** ISO-8601. */
  readonly createdAt: string;
}

/** Options of `vm.snapshot` as this adapter sends them: the ownership marks (see `snapshot-marks.ts`). */
export interface FreestyleSnapshotOptions {
  readonly slug: string;
  readonly displayName: string;
}

/** What `vm.snapshot` resolves with. */
export interface FreestyleSnapshotCreated {
  readonly snapshotId: string;
  readonly snapshot: FreestyleSnapshotData;
}

/** `freestyle.vms.snapshots`. */
export interface FreestyleSnapshots {
  list(options: { readonly limit: number; readonly offset: number }): Promise<{
    readonly snapshots: FreestyleSnapshotData[];
    /** How many snapshots there are, over every page. */
    readonly totalCount: number;
  }>;
  /** By id or slug; rejects 404 `SNAPSHOT_NOT_FOUND` when absent. */
  get(idOrSlug: string): Promise<FreestyleSnapshotData>;
  delete(idOrSlug: string): Promise<void>;
}

/** A handle to one VM (`vms.ref`, no request). */
export interface FreestyleVm {
  readonly id: string;
  readonly fs: FreestyleFilesystem;
  exec(options: FreestyleExecOptions): Promise<FreestyleExecResult>;
  start(): Promise<unknown>;
  pause(): Promise<unknown>;
  /** Memory and disk; the VM keeps running. */
  snapshot(options: FreestyleSnapshotOptions): Promise<FreestyleSnapshotCreated>;
}

/** `freestyle.vms`. */
export interface FreestyleVms {
  create(options: FreestyleCreateOptions): Promise<FreestyleCreated>;
  /** By id or slug; rejects 404 `VM_NOT_FOUND` when absent. */
  get(idOrSlug: string): Promise<FreestyleVmData>;
  list(options: FreestyleListOptions): Promise<FreestyleListResult>;
  delete(idOrSlug: string): Promise<void>;
  ref(idOrSlug: string): FreestyleVm;
  readonly snapshots: FreestyleSnapshots;
}

/** A client (`new Freestyle(...)`). */
export interface FreestyleClient {
  readonly vms: FreestyleVms;
}

/** The module shape this adapter needs from the `freestyle` package. */
export interface FreestyleSdkModule {
  readonly Freestyle: new (options: FreestyleClientOptions) => FreestyleClient;
}
