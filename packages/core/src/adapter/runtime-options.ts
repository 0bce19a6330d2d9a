import { invalidRequest } from "../errors/factories.js";
import { SandportError } from "../errors/sandport-error.js";
import { OPERATION_TIMEOUT_NAMES, type OperationTimeouts } from "../timing/operation-timeouts.js";
import { describeValue, type KeyShape, nearestKey } from "../validation/known-keys.js";
import { validateMaxOutputBytes, validateTimeoutMs } from "../validation/numbers.js";
import { normalizeWorkspacePath } from "../validation/workspace-path.js";
import { validateOwner } from "./ownership.js";

/** The options every runtime takes under these names. Nothing is ever read from the environment. */
export interface CommonRuntimeOptions {
  /**
   * Ownership marker stored with every sandbox this runtime launches; sandboxes
   * without it are foreign: never listed, reattached or destroyed. 1-64
   * characters of `[A-Za-z0-9._-]`. Default `"sandport"`.
   */
  readonly owner?: string;
  /** Run budget in ms for a command without its own `timeoutMs`; always enforced. */
  readonly runBudgetMs?: number;
  /** Cap on a command's stdout + stderr bytes without its own `maxOutputBytes`. */
  readonly maxOutputBytes?: number;
  /** Per-call deadlines; see `OperationTimeouts`. */
  readonly timeouts?: Partial<OperationTimeouts>;
}

/**
 * The keys of {@link CommonRuntimeOptions}, to spread into a runtime's own
 * `KeyShape` (`keyList<LocalRuntimeOptions>({ ...COMMON_RUNTIME_OPTION_SHAPE, root: true, ... })`).
 */
export const COMMON_RUNTIME_OPTION_SHAPE: KeyShape<CommonRuntimeOptions> = Object.freeze({
  owner: true,
  runBudgetMs: true,
  maxOutputBytes: true,
  timeouts: true,
});

/** {@link CommonRuntimeOptions} after validation, every default applied. */
export interface ResolvedCommonOptions {
  readonly owner: string;
  readonly runBudgetMs: number;
  readonly maxOutputBytes: number;
  readonly timeouts: OperationTimeouts;
}

/** A runtime's defaults for {@link CommonRuntimeOptions}. */
export interface CommonDefaults {
  readonly runBudgetMs: number;
  readonly maxOutputBytes: number;
  readonly timeouts: OperationTimeouts;
}

/**
 * The options every remote runtime (one whose sandboxes live with a vendor,
 * reached through its SDK) takes under these names, beside the common ones.
 * `Sdk` is what the runtime's `sdk` option takes.
 */
export interface RemoteRuntimeOptions<Sdk> extends CommonRuntimeOptions {
  /** Outbound network when `LaunchSpec.network` is absent. Default: the runtime's (see its README). */
  readonly network?: boolean;
  /**
   * How long, in ms, the background cleanup of an abandoned launch (a create
   * that outlived its caller's abort or deadline) may take in all: waiting for
   * the create, searching by launch key, destroying. Default 120 000.
   */
  readonly orphanCleanupMs?: number;
  /** Replaces loading the vendor SDK: a module, or a function that loads one. For tests and bundlers. */
  readonly sdk?: Sdk;
  /**
   * Called once for each failure of background work (destroying what an
   * abandoned launch created, and the runtime's other cleanup). The failure is
   * also kept for `settle()`.
   */
  readonly onBackgroundError?: (error: SandportError) => void;
}

/**
 * The keys of {@link RemoteRuntimeOptions} (the common ones included), to
 * spread into a remote runtime's own `KeyShape`.
 */
export const REMOTE_RUNTIME_OPTION_SHAPE: KeyShape<RemoteRuntimeOptions<unknown>> = Object.freeze({
  ...COMMON_RUNTIME_OPTION_SHAPE,
  network: true,
  orphanCleanupMs: true,
  sdk: true,
  onBackgroundError: true,
});

/**
 * Options a remote runtime takes under these names when it has them (pick
 * them: `Pick<RemoteRuntimeExtras, "workspaceRoot" | "listPageSize">`); its
 * README gives its default and range.
 */
export interface RemoteRuntimeExtras {
  /** Absolute workspace directory inside the sandbox; created at launch. */
  readonly workspaceRoot?: string;
  /** Sandbox lifetime in ms when `LaunchSpec.lifetimeMs` is absent; always sent. */
  readonly lifetimeMs?: number;
  /** Page size of the list API, within the API's own range. */
  readonly listPageSize?: number;
}

/** {@link RemoteRuntimeOptions} after validation, every default applied (`sdk` and `onBackgroundError` stay the runtime's). */
export interface ResolvedRemoteOptions extends ResolvedCommonOptions {
  readonly network: boolean;
  readonly orphanCleanupMs: number;
}

/** {@link RemoteRuntimeExtras} after validation, every default applied. */
export type ResolvedRemoteExtras = { readonly [K in keyof RemoteRuntimeExtras]-?: NonNullable<RemoteRuntimeExtras[K]> };

/**
 * A remote runtime's defaults. `runBudgetMs` defaults to 600 000 and
 * `maxOutputBytes` to 16 MiB; an extra is read only when its default is given.
 */
export interface RemoteDefaults extends Partial<CommonDefaults> {
  readonly timeouts: OperationTimeouts;
  readonly network: boolean;
  readonly workspaceRoot?: string;
  readonly lifetimeMs?: number;
  /** The list API's largest page, and the page size without the option. */
  readonly listPageSize?: { readonly max: number; readonly fallback: number };
}

/** What {@link OptionReader.remote} reads: the extras whose defaults `D` gives. */
export type ResolvedRemote<D extends RemoteDefaults> = ResolvedRemoteOptions &
  Pick<ResolvedRemoteExtras, keyof D & keyof ResolvedRemoteExtras>;

/**
 * A remote runtime's default per-call deadlines: its own `launchMs` and
 * `lifecycleMs` (they depend on how long the provider takes to create and
 * to stop or start a sandbox), and what every remote runtime uses for the
 * rest: `lookupMs` 60 000, `fileMs` 120 000, `destroyMs` 60 000, `execGraceMs` 30 000.
 */
export function remoteTimeouts(own: Pick<OperationTimeouts, "launchMs" | "lifecycleMs">): OperationTimeouts {
  return Object.freeze({
    launchMs: own.launchMs,
    lookupMs: 60_000,
    fileMs: 120_000,
    destroyMs: 60_000,
    lifecycleMs: own.lifecycleMs,
    execGraceMs: 30_000,
  });
}

/** How long the background cleanup of an abandoned launch may take without `orphanCleanupMs`. */
const ORPHAN_CLEANUP_MS = 120_000;

/**
 * Reads a runtime's options with one error format: `<Runtime> option <field>
 * <why>`, `INVALID_REQUEST`, `details.field`. No I/O, nothing from the environment.
 */
export class OptionReader {
  readonly #runtime: string;
  readonly #provider: string;

  /**
   * @param runtime the runtime's class name (`"E2BRuntime"`), named in errors
   * @param provider the provider name, stamped on errors
   */
  constructor(runtime: string, provider: string) {
    this.#runtime = runtime;
    this.#provider = provider;
  }

  /** The provider name. */
  get provider(): string {
    return this.#provider;
  }

  /** The refusal for one option. */
  refuse(field: string, why: string): SandportError {
    return invalidRequest(`${this.#runtime} option ${field} ${why}`, { field }, this.#provider);
  }

  /**
   * The options object itself: refused unless an object (absent: `{}`), and
   * refused when it has a key that is not in `known` (the runtime's option
   * list, built with `keyList` next to its options type), naming the nearest
   * known key: a misspelt option is never ignored.
   */
  object<T extends object>(options: T | undefined, known: readonly string[]): T {
    if (options === undefined) return {} as T;
    if (typeof options !== "object" || options === null) throw this.refuse("(options)", "must be an object");
    this.known(options, known);
    return options;
  }

  /**
   * Refuses a key of `value` (an option object, or one nested in it under
   * `prefix`) that is not in `known`, naming the nearest known key.
   */
  known(value: object, known: readonly string[], prefix = ""): void {
    for (const key of Object.keys(value)) {
      if (known.includes(key)) continue;
      const nearest = nearestKey(key, known);
      const hint = nearest === undefined ? `known: ${known.join(", ")}` : `did you mean ${prefix}${nearest}?`;
      throw invalidRequest(
        `${this.#runtime} option ${prefix}${key} is unknown (${hint})`,
        { field: `${prefix}${key}`, ...(nearest === undefined ? {} : { nearest: `${prefix}${nearest}` }) },
        this.#provider,
      );
    }
  }

  /** A non-empty string, or `undefined` when absent. */
  text(value: unknown, field: string): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== "string" || value.trim() === "") throw this.refuse(field, "must be a non-empty string");
    return value;
  }

  /** A required non-empty string; `missing` says what happens without it. */
  requiredText(value: unknown, field: string, missing: string): string {
    const text = this.text(value, field);
    if (text === undefined) throw this.refuse(field, `is required (${missing})`);
    return text;
  }

  /** An `http(s)` URL without trailing slashes, or `undefined` when absent. */
  url(value: unknown, field: string): string | undefined {
    const given = this.text(value, field);
    if (given === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(given);
    } catch {
      throw this.refuse(field, `${JSON.stringify(given)} is not a URL`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw this.refuse(field, "must be http(s)");
    return given.replace(/\/+$/, "");
  }

  /** An absolute path (no `..`, no control characters), or `undefined` when absent. */
  absolutePath(value: unknown, field: string): string | undefined {
    const given = this.text(value, field);
    if (given === undefined) return undefined;
    if (!given.startsWith("/")) throw this.refuse(field, "must be an absolute path");
    if (given === "/") return given;
    const inner = given.slice(1);
    return `/${this.#rephrase(field, () => normalizeWorkspacePath(inner, { allowRoot: false, field, provider: this.#provider }))}`;
  }

  /** An integer in `[min, max]`, or `undefined` when absent. */
  integer(value: unknown, field: string, min: number, max: number): number | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      throw this.refuse(field, `must be an integer from ${min} to ${max}, got ${describeValue(value)}`);
    }
    return value;
  }

  /** A boolean, or `undefined` when absent. */
  boolean(value: unknown, field: string): boolean | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== "boolean") throw this.refuse(field, `must be a boolean, got ${describeValue(value)}`);
    return value;
  }

  /** A function (a hook, an injected `fetch`), or `undefined` when absent. */
  callback<F extends (...args: never[]) => unknown>(value: F | undefined, field: string): F | undefined {
    if (value !== undefined && typeof value !== "function") throw this.refuse(field, "must be a function");
    return value;
  }

  /** A duration in ms (as `ExecRequest.timeoutMs`), or `undefined` when absent. */
  durationMs(value: unknown, field: string): number | undefined {
    return this.#rephrase(field, () => validateTimeoutMs(value, field, this.#provider));
  }

  /** Runs a shared validator on option `field`, its refusal in this reader's format (`details.field` the bare field). */
  #rephrase<T>(field: string, check: () => T): T {
    try {
      return check();
    } catch (error) {
      if (!SandportError.isInstance(error)) throw error;
      throw invalidRequest(`${this.#runtime} option ${error.message}`, { ...error.details, field }, this.#provider);
    }
  }

  /** The options every runtime shares, with the runtime's defaults. */
  common(options: CommonRuntimeOptions, defaults: CommonDefaults): ResolvedCommonOptions {
    const timeouts: Record<string, number> = { ...defaults.timeouts };
    const given = options.timeouts ?? {};
    if (typeof given !== "object" || given === null) throw this.refuse("timeouts", "must be an object");
    this.known(given, OPERATION_TIMEOUT_NAMES, "timeouts.");
    for (const [name, value] of Object.entries(given)) {
      if (value !== undefined) timeouts[name] = this.durationMs(value, `timeouts.${name}`) as number;
    }
    let owner: string;
    try {
      owner = validateOwner(options.owner, this.#provider);
    } catch {
      throw this.refuse("owner", "must be 1-64 characters of [A-Za-z0-9._-]");
    }
    return {
      owner,
      runBudgetMs: this.durationMs(options.runBudgetMs, "runBudgetMs") ?? defaults.runBudgetMs,
      maxOutputBytes:
        this.#rephrase("maxOutputBytes", () =>
          validateMaxOutputBytes(options.maxOutputBytes, "maxOutputBytes", this.#provider),
        ) ?? defaults.maxOutputBytes,
      timeouts: Object.freeze(timeouts) as unknown as OperationTimeouts,
    };
  }

  /**
   * The options every remote runtime shares ({@link RemoteRuntimeOptions},
   * the common ones included; `onBackgroundError` checked to be a function),
   * and the extras whose defaults `defaults` gives.
   */
  remote<D extends RemoteDefaults>(
    options: RemoteRuntimeOptions<unknown> & RemoteRuntimeExtras,
    defaults: D,
  ): ResolvedRemote<D> {
    const common = this.common(options, {
      runBudgetMs: defaults.runBudgetMs ?? 600_000,
      maxOutputBytes: defaults.maxOutputBytes ?? 16 * 1024 * 1024,
      timeouts: defaults.timeouts,
    });
    this.callback(options.onBackgroundError, "onBackgroundError");
    const extras: { -readonly [K in keyof ResolvedRemoteExtras]?: ResolvedRemoteExtras[K] } = {};
    if (defaults.workspaceRoot !== undefined) {
      extras.workspaceRoot = this.absolutePath(options.workspaceRoot, "workspaceRoot") ?? defaults.workspaceRoot;
    }
    if (defaults.lifetimeMs !== undefined) {
      extras.lifetimeMs = this.durationMs(options.lifetimeMs, "lifetimeMs") ?? defaults.lifetimeMs;
    }
    if (defaults.listPageSize !== undefined) {
      const { max, fallback } = defaults.listPageSize;
      extras.listPageSize = this.integer(options.listPageSize, "listPageSize", 1, max) ?? fallback;
    }
    return {
      ...common,
      network: this.boolean(options.network, "network") ?? defaults.network,
      orphanCleanupMs: this.durationMs(options.orphanCleanupMs, "orphanCleanupMs") ?? ORPHAN_CLEANUP_MS,
      ...extras,
    } as ResolvedRemote<D>;
  }
}
