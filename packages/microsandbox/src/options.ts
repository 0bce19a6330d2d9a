import { keyList, type OperationTimeouts } from "@sandport/core";
import {
  OptionReader,
  REMOTE_RUNTIME_OPTION_SHAPE,
  type RemoteRuntimeExtras,
  type RemoteRuntimeOptions,
  type ResolvedRemote,
  remoteTimeouts,
} from "@sandport/core/adapter";
import { PROVIDER } from "./handle.js";
import type { BackendBinding } from "./internal/default-backend.js";
import type { MicrosandboxSdkSource } from "./internal/sdk.js";

/** The hosted cloud API, sent explicitly when `backend.url` is absent (the SDK's own default). */
export const DEFAULT_CLOUD_URL = "https://api.microsandbox.dev";

/**
 * Where the sandboxes run.
 *
 * - `{ kind: "cloud", apiKey, url? }`: the microsandbox cloud (or anything
 *   speaking its API) at `url`, default {@link DEFAULT_CLOUD_URL}.
 * - `{ kind: "local" }`: microVMs on this machine, through the SDK's bundled
 *   `msb` runtime; needs hardware virtualisation (`/dev/kvm`).
 */
export type MicrosandboxBackend =
  | { readonly kind: "cloud"; readonly apiKey: string; readonly url?: string }
  | { readonly kind: "local" };

/** Resources of every sandbox launched; a launch's `resources` override them. */
export interface MicrosandboxResources {
  /** Virtual CPUs, an integer from 1 to 64. Default 1. */
  readonly vcpus?: number;
  /** Memory in MiB, an integer from 128 to 1 048 576. Default 512. */
  readonly memoryMiB?: number;
}

/**
 * Options of {@link MicrosandboxRuntime}. Nothing is read from the environment:
 * no `MSB_*` variable and no profile in `$MSB_HOME/config.json` can change
 * where calls go. The common and remote options (`owner`, `runBudgetMs`,
 * `maxOutputBytes`, `timeouts`, `network`, `orphanCleanupMs`, `sdk` for the
 * `microsandbox` SDK slice, `onBackgroundError`) mean what they mean in every
 * runtime; here `network` defaults to `true` (microsandbox's own default),
 * `workspaceRoot`, the sandbox's working directory, to `/workspace`, and
 * `listPageSize` is 1-100, default 100.
 */
export interface MicrosandboxRuntimeOptions
  extends RemoteRuntimeOptions<MicrosandboxSdkSource>,
    Pick<RemoteRuntimeExtras, "workspaceRoot" | "listPageSize"> {
  /** Where the sandboxes run. Required: there is no default backend. */
  readonly backend: MicrosandboxBackend;
  /**
   * OCI image launched when `LaunchSpec.template` is absent. Default
   * `debian:bookworm-slim`. It needs a POSIX `sh` and GNU `realpath` (the
   * symlink guard of the file calls).
   */
  readonly image?: string;
  /**
   * A snapshot (name or path, as `msb` names it) to launch from instead of
   * `image`: local backend only, since a snapshot is an artifact on this
   * machine. `LaunchSpec.template` still names an image and wins.
   */
  readonly snapshot?: string;
  /** Resources of every sandbox; always sent. */
  readonly resources?: MicrosandboxResources;
  /**
   * Longest a sandbox runs, in ms, when `LaunchSpec.lifetimeMs` is absent:
   * sent (rounded up to whole seconds) as the sandbox's `maxDuration`, after
   * which microsandbox stops it. Default 3 600 000 (1 hour).
   */
  readonly maxDurationMs?: number;
  /**
   * Stop a sandbox after this many ms without agent traffic or a running
   * command (rounded up to whole seconds). Default: none is sent, and the
   * sandbox is not stopped for idleness.
   */
  readonly idleTimeoutMs?: number;
}

/** Every option `MicrosandboxRuntime` takes; any other is refused, naming the nearest known one. */
export const MICROSANDBOX_OPTION_KEYS = keyList<MicrosandboxRuntimeOptions>({
  ...REMOTE_RUNTIME_OPTION_SHAPE,
  backend: true,
  image: true,
  snapshot: true,
  resources: true,
  workspaceRoot: true,
  maxDurationMs: true,
  idleTimeoutMs: true,
  listPageSize: true,
});

/** Options after defaults and validation. */
export interface ResolvedOptions extends ResolvedRemote<typeof MICROSANDBOX_DEFAULTS> {
  readonly backend: BackendBinding;
  readonly image: string;
  readonly snapshot: string | undefined;
  readonly vcpus: number;
  readonly memoryMiB: number;
  readonly maxDurationMs: number;
  readonly idleTimeoutMs: number | undefined;
}

/**
 * Default per-call deadlines, used when a call's `OpOptions.timeoutMs` is
 * absent. `launchMs` covers the create (the cloud waits up to 90 s for the
 * sandbox to run), the launch's only request.
 */
export const DEFAULT_MICROSANDBOX_TIMEOUTS: OperationTimeouts = remoteTimeouts({
  launchMs: 180_000,
  lifecycleMs: 120_000,
});

/** The defaults of the remote options microsandbox shares. */
const MICROSANDBOX_DEFAULTS = {
  timeouts: DEFAULT_MICROSANDBOX_TIMEOUTS,
  network: true,
  workspaceRoot: "/workspace",
  listPageSize: { max: 100, fallback: 100 },
} as const;

/** Validates options and fills defaults. Throws `INVALID_REQUEST`; does no I/O. */
export function resolveOptions(given: MicrosandboxRuntimeOptions): ResolvedOptions {
  const read = new OptionReader("MicrosandboxRuntime", PROVIDER);
  const options = read.object(given, MICROSANDBOX_OPTION_KEYS);
  const remote = read.remote(options, MICROSANDBOX_DEFAULTS);
  const backend = readBackend(read, options.backend);
  const snapshot = read.text(options.snapshot, "snapshot");
  if (snapshot !== undefined && backend.kind === "cloud") {
    throw read.refuse(
      "snapshot",
      "needs the local backend: a snapshot is an artifact on this machine, which the cloud cannot reach",
    );
  }
  if (snapshot !== undefined && options.image !== undefined) {
    throw read.refuse("snapshot", "and image are alternatives: give one");
  }
  const resources = options.resources ?? {};
  if (typeof resources !== "object" || resources === null) throw read.refuse("resources", "must be an object");
  read.known(resources, keyList<MicrosandboxResources>({ vcpus: true, memoryMiB: true }), "resources.");
  return {
    ...remote,
    backend,
    image: read.text(options.image, "image") ?? "debian:bookworm-slim",
    snapshot,
    vcpus: read.integer(resources.vcpus, "resources.vcpus", 1, 64) ?? 1,
    memoryMiB: read.integer(resources.memoryMiB, "resources.memoryMiB", 128, 1_048_576) ?? 512,
    maxDurationMs: read.durationMs(options.maxDurationMs, "maxDurationMs") ?? 3_600_000,
    idleTimeoutMs: read.durationMs(options.idleTimeoutMs, "idleTimeoutMs"),
  };
}

function readBackend(read: OptionReader, backend: unknown): BackendBinding {
  if (typeof backend !== "object" || backend === null) {
    throw read.refuse("backend", 'is required: { kind: "cloud", apiKey, url? } or { kind: "local" }');
  }
  const { kind, apiKey, url } = backend as { kind?: unknown; apiKey?: unknown; url?: unknown };
  if (kind === "local") {
    if (apiKey !== undefined || url !== undefined) throw read.refuse("backend", "local takes no apiKey or url");
    return { kind: "local" };
  }
  if (kind !== "cloud") throw read.refuse("backend.kind", 'must be "cloud" or "local"');
  return {
    kind: "cloud",
    apiKey: read.requiredText(apiKey, "backend.apiKey", "nothing is read from MSB_API_KEY or a profile"),
    url: read.url(url, "backend.url") ?? DEFAULT_CLOUD_URL,
  };
}
