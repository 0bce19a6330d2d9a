import { SandportError } from "../errors/sandport-error.js";
import { satisfiesNodeRange } from "./node-range.js";

/** One package name an adapter's SDK may be installed under, and how to import it. */
export interface SdkPackage {
  /** The npm package name. */
  readonly name: string;
  /** `() => import("<name>")`, written out literally so bundlers see it. */
  readonly load: () => Promise<unknown>;
}

/** What {@link createSdkLoader} needs. */
export interface SdkLoaderOptions<M> {
  /** Provider name, stamped on errors. */
  readonly provider: string;
  /** The adapter package that needs the SDK (`"@sandport/e2b"`), named in errors. */
  readonly adapterPackage: string;
  /** The supported version range; the package contract test checks it equals the peer dependency range. */
  readonly range: string;
  /** Names to try, in order (a renamed SDK: the new name first, then the old). */
  readonly packages: readonly SdkPackage[];
  /**
   * Members the loaded module must have (`"Sandbox.create"`): a module that
   * lacks one is the wrong package or version, refused with `SDK_UNAVAILABLE`.
   */
  readonly requiredMembers?: readonly string[];
  /** The Node versions the SDK needs (`">=22"`), named in the error only when this Node does not satisfy it. */
  readonly node?: string;
  /** A module, or a function that loads one, used instead of importing (tests, bundlers). */
  readonly source?: M | (() => Promise<M>);
}

/** Loads an adapter's vendor SDK on first use. */
export interface SdkLoader<M> {
  /** The SDK module. Loaded once; a failed load is not cached, so installing the SDK later works. */
  (): Promise<M>;
  /** The package names tried, in order. */
  readonly packageNames: readonly string[];
  /** The supported range. */
  readonly range: string;
}

/**
 * Builds the loader an adapter's `internal/sdk.ts` exports: the one place the
 * vendor SDK is imported at run time. A failure is `SDK_UNAVAILABLE` with one
 * message: which package to install, the supported range, why the import
 * failed, and the Node version only when it is the likely cause.
 */
export function createSdkLoader<M>(options: SdkLoaderOptions<M>): SdkLoader<M> {
  let loading: Promise<M> | undefined;
  const load = (): Promise<M> => {
    if (!loading) {
      loading = loadOnce(options);
      loading.catch(() => {
        loading = undefined;
      });
    }
    return loading;
  };
  return Object.assign(load, {
    packageNames: options.packages.map((sdkPackage) => sdkPackage.name),
    range: options.range,
  });
}

async function loadOnce<M>(options: SdkLoaderOptions<M>): Promise<M> {
  const { source } = options;
  let loaded: unknown;
  let from: string;
  if (source !== undefined) {
    from = "the injected SDK";
    try {
      loaded = typeof source === "function" ? await (source as () => Promise<M>)() : source;
    } catch (error) {
      throw unavailable(options, `the injected SDK loader failed: ${reasonOf(error)}`, error);
    }
  } else {
    const failures: unknown[] = [];
    for (const sdkPackage of options.packages) {
      try {
        loaded = await sdkPackage.load();
        break;
      } catch (error) {
        failures.push(error);
      }
    }
    if (loaded === undefined) {
      const reasons = failures.map(reasonOf).join("; ");
      throw unavailable(options, `it could not be loaded (${reasons})`, failures.at(-1));
    }
    from = `the loaded "${options.packages[failures.length]?.name}" module`;
  }
  const missing = (options.requiredMembers ?? []).filter((member) => !hasMember(loaded, member));
  if (missing.length > 0) {
    throw unavailable(options, `${from} lacks ${missing.join(", ")}: it is not that SDK, or not a supported version`);
  }
  return loaded as M;
}

function unavailable(options: SdkLoaderOptions<unknown>, why: string, cause?: unknown): SandportError {
  const names = options.packages.map((sdkPackage) => `"${sdkPackage.name}"`).join(" or ");
  const install = `npm install ${options.packages[0]?.name}@"${options.range}"`;
  const node =
    options.node !== undefined && !satisfiesNodeRange(process.versions.node, options.node)
      ? ` It needs Node ${options.node}, and this is Node ${process.versions.node}: that is the likely cause.`
      : "";
  return new SandportError({
    code: "SDK_UNAVAILABLE",
    provider: options.provider,
    retryable: false,
    ...(cause === undefined ? {} : { cause }),
    message: `${options.adapterPackage} needs the optional peer dependency ${names} (${options.range}), but ${why}. Install it with ${install}.${node}`,
    details: { packages: options.packages.map((sdkPackage) => sdkPackage.name), range: options.range },
  });
}

function hasMember(module: unknown, path: string): boolean {
  let current: unknown = module;
  for (const part of path.split(".")) {
    if ((typeof current !== "object" && typeof current !== "function") || current === null) return false;
    current = (current as Record<string, unknown>)[part];
  }
  return current !== undefined;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
