import { keyList, type OperationTimeouts, type SandportError } from "@sandport/core";
import {
  COMMON_RUNTIME_OPTION_SHAPE,
  type CommonRuntimeOptions,
  OptionReader,
  type ResolvedCommonOptions,
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
 * where calls go. The common options (`owner`, `runBudgetMs`,
 * `maxOutputBytes`, `timeouts`) mean what they mean in every runtime.
 */
export interface MicrosandboxRuntimeOptions extends CommonRuntimeOptions {
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
  /** Absolute workspace directory inside the sandbox, its working directory; created at launch. Default `/workspace`. */
  readonly workspaceRoot?: string;
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
  /** Outbound network when `LaunchSpec.network` is absent. Default `true` (microsandbox's own default). */
  readonly network?: boolean;
  /** Page size of the list API, 1-100. Default 100. */
  readonly listPageSize?: number;
  /**
   * How long, in ms, the background cleanup of an abandoned launch (a create
   * that outlived its caller's abort or deadline) may take in all. Default 120 000.
   */
  readonly orphanCleanupMs?: number;
  /** Replaces loading the `microsandbox` package: the SDK slice, or a function that loads it. For tests and bundlers. */
  readonly sdk?: MicrosandboxSdkSource;
  /**
   * Called once for each failure of background cleanup (destroying what an
   * abandoned launch created). The failure is also kept for `settle()`.
   */
  readonly onBackgroundError?: (error: SandportError) => void;
}

/** Every option `MicrosandboxRuntime` takes; any other is refused, naming the nearest known one. */
export const MICROSANDBOX_OPTION_KEYS = keyList<MicrosandboxRuntimeOptions>({
  ...COMMON_RUNTIME_OPTION_SHAPE,
  backend: true,
  image: true,
  snapshot: true,
  resources: true,
  workspaceRoot: true,
  maxDurationMs: true,
  idleTimeoutMs: true,
  network: true,
  listPageSize: true,
  orphanCleanupMs: true,
  sdk: true,
  onBackgroundError: true,
});

/** Options after defaults and validation. */
export interface ResolvedOptions extends ResolvedCommonOptions {
  readonly backend: BackendBinding;
  readonly image: string;
  readonly snapshot: string | undefined;
  readonly vcpus: number;
  readonly memoryMiB: number;
  readonly workspaceRoot: string;
  readonly maxDurationMs: number;
  readonly idleTimeoutMs: number | undefined;
  readonly network: boolean;
  readonly listPageSize: number;
  readonly orphanCleanupMs: number;
}

/**
 * Default per-call deadlines, used when a call's `OpOptions.timeoutMs` is
 * absent. `launchMs` covers the create (the cloud waits up to 90 s for the
 * sandbox to run) and creating the workspace directory.
 */
export const DEFAULT_MICROSANDBOX_TIMEOUTS: OperationTimeouts = Object.freeze({
  launchMs: 180_000,
  lookupMs: 60_000,
  fileMs: 120_000,
  destroyMs: 60_000,
  lifecycleMs: 120_000,
  execGraceMs: 30_000,
});

/** Validates options and fills defaults. Throws `INVALID_REQUEST`; does no I/O. */
export function resolveOptions(given: MicrosandboxRuntimeOptions): ResolvedOptions {
  const read = new OptionReader("MicrosandboxRuntime", PROVIDER);
  const options = read.object(given, MICROSANDBOX_OPTION_KEYS);
  const common = read.common(options, {
    runBudgetMs: 600_000,
    maxOutputBytes: 16 * 1024 * 1024,
    timeouts: DEFAULT_MICROSANDBOX_TIMEOUTS,
  });
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
  if (options.onBackgroundError !== undefined && typeof options.onBackgroundError !== "function") {
    throw read.refuse("onBackgroundError", "must be a function");
  }
  return {
    ...common,
    backend,
    image: read.text(options.image, "image") ?? "debian:bookworm-slim",
    snapshot,
    vcpus: read.integer(resources.vcpus, "resources.vcpus", 1, 64) ?? 1,
    memoryMiB: read.integer(resources.memoryMiB, "resources.memoryMiB", 128, 1_048_576) ?? 512,
    workspaceRoot: read.absolutePath(options.workspaceRoot, "workspaceRoot") ?? "/workspace",
    maxDurationMs: read.durationMs(options.maxDurationMs, "maxDurationMs") ?? 3_600_000,
    idleTimeoutMs: read.durationMs(options.idleTimeoutMs, "idleTimeoutMs"),
    network: read.boolean(options.network, "network") ?? true,
    listPageSize: read.integer(options.listPageSize, "listPageSize", 1, 100) ?? 100,
    orphanCleanupMs: read.durationMs(options.orphanCleanupMs, "orphanCleanupMs") ?? 120_000,
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
