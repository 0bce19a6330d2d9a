import { CliError } from "../cli-error.js";
import { readOptionValue } from "./option-values.js";

/** How the text of an environment variable or `--option` value becomes an option value. */
export type OptionType = "string" | "integer" | "boolean" | "list";

/** One constructor option the CLI may set, as an adapter declares it. */
export interface OptionSpec {
  /** The environment variable that feeds it: `SANDPORT_<PROVIDER>_<NAME>`. */
  readonly env: string;
  /** How its text is read: `string` (default), `integer`, `boolean` (`true`/`false`), `list` (comma-separated). */
  readonly type: OptionType;
  /** A credential: never printed, never accepted from `--option` (it would show in `ps`). Default `false`. */
  readonly secret: boolean;
  /** Commands that reach the provider refuse to run without it (exit 3). Default `false`. */
  readonly required: boolean;
  /**
   * Value used when the runtime is only inspected (`capabilities`, `doctor`), never
   * called: constructors do no I/O, so a placeholder credential is safe there.
   */
  readonly inspect: string | undefined;
  /**
   * Text used when nothing sets the option, read as its `type`: for an option
   * the constructor requires but a user rarely chooses (Modal's sandbox lifetime).
   */
  readonly default: string | undefined;
}

/**
 * What an adapter package says about itself for the CLI: the `"sandport"`
 * field of its package.json, read without importing the package. See
 * docs/adapters.md ("Joining the CLI").
 */
export interface ProviderDescriptor {
  /** Short provider name, the package name without `@sandport/` (`"e2b"`). */
  readonly provider: string;
  /** npm name of the adapter package. */
  readonly packageName: string;
  /** Its version (evidence applies to this version only). */
  readonly version: string;
  /** Absolute path of its package.json, from which its SDKs are resolved. */
  readonly manifestPath: string;
  /** Name of the runtime class the package exports (`"E2BRuntime"`). */
  readonly runtimeExport: string;
  /** Constructor options the CLI may set, by option name (a dotted name sets a field of an object option). */
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Options `--endpoint URL` sets to the URL (to point the adapter at an emulator or a self-hosted service). */
  readonly endpoint: readonly string[];
  /** Vendor SDKs the adapter loads: the package's non-Sandport peer dependencies, name → supported range. */
  readonly sdks: Readonly<Record<string, string>>;
  /**
   * SDKs published under several names (Daytona's `@daytona/sdk` and
   * `@daytonaio/sdk`): each group lists names of {@link sdks} of which any one
   * installed satisfies the adapter, in the order it tries them.
   */
  readonly sdkAlternatives: readonly (readonly string[])[];
  /** Conformance checks a canary skips for this provider, with the reason. */
  readonly canarySkip: Readonly<Record<string, string>>;
  /** Whether `doctor` may launch a throwaway sandbox to prove the provider works (it costs nothing). */
  readonly doctorLaunch: boolean;
  /** Where the bubblewrap binary the provider needs is: the option naming it, and its default. */
  readonly bubblewrap: { readonly option: string; readonly defaultPath: string } | undefined;
}

/** The parts of a package.json the CLI reads. */
export interface AdapterManifest {
  readonly name?: unknown;
  readonly version?: unknown;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly sandport?: unknown;
}

type Fields = Record<string, unknown>;

/**
 * Validates an adapter's `"sandport"` descriptor. Returns `undefined` for a
 * package without one (core, the test kit) or with `"kind": "bridge"` (a
 * framework bridge): not providers. Throws
 * `DESCRIPTOR_INVALID` naming the package and the field for a malformed one.
 */
export function parseDescriptor(manifest: AdapterManifest, manifestPath: string): ProviderDescriptor | undefined {
  if (manifest.sandport === undefined) return undefined;
  const packageName = String(manifest.name);
  const fail = (why: string) =>
    new CliError("DESCRIPTOR_INVALID", `${packageName}'s package.json "sandport" descriptor is invalid: ${why}`);
  const fields = objectOf(manifest.sandport, "sandport", fail);
  // A framework bridge marks itself `"kind": "bridge"`: a package of the umbrella, not a provider.
  if (fields.kind === "bridge") return undefined;
  if (fields.kind !== undefined && fields.kind !== "provider") throw fail('"kind" must be "provider" or "bridge"');
  if (!/^@sandport\/[a-z0-9-]+$/.test(packageName)) throw fail("the package must be named @sandport/<provider>");
  const provider = packageName.slice("@sandport/".length);
  if (typeof fields.runtime !== "string" || !/^[A-Z][A-Za-z0-9]*Runtime$/.test(fields.runtime)) {
    throw fail('"runtime" must name the exported <P>Runtime class');
  }
  const options = optionsOf(fields.options ?? {}, provider, fail);
  const endpoint = fields.endpoint ?? [];
  if (!Array.isArray(endpoint) || endpoint.some((name) => typeof name !== "string" || !(name in options))) {
    throw fail('"endpoint" must list options declared in "options"');
  }
  const canary = objectOf(fields.canary ?? {}, "canary", fail);
  const skip = objectOf(canary.skip ?? {}, "canary.skip", fail);
  for (const [id, reason] of Object.entries(skip)) {
    if (typeof reason !== "string" || reason.trim() === "") throw fail(`canary.skip.${id} needs a reason`);
  }
  const doctor = objectOf(fields.doctor ?? {}, "doctor", fail);
  if (doctor.launch !== undefined && typeof doctor.launch !== "boolean") throw fail("doctor.launch must be a boolean");
  const bubblewrap =
    doctor.bubblewrap === undefined ? undefined : objectOf(doctor.bubblewrap, "doctor.bubblewrap", fail);
  if (bubblewrap && !(typeof bubblewrap.option === "string" && bubblewrap.option in options)) {
    throw fail("doctor.bubblewrap.option must name a declared option");
  }
  if (bubblewrap && (typeof bubblewrap.default !== "string" || !bubblewrap.default.startsWith("/"))) {
    throw fail("doctor.bubblewrap.default must be the absolute path the adapter uses by default");
  }
  const sdks = Object.fromEntries(
    Object.entries(manifest.peerDependencies ?? {}).filter(([name]) => !name.startsWith("@sandport/")),
  );
  const sdkAlternatives = alternativesOf(fields.sdkAlternatives ?? [], sdks, fail);
  return {
    provider,
    packageName,
    version: typeof manifest.version === "string" ? manifest.version : "0.0.0",
    manifestPath,
    runtimeExport: fields.runtime,
    options,
    endpoint: endpoint as string[],
    sdks,
    sdkAlternatives,
    canarySkip: skip as Record<string, string>,
    doctorLaunch: doctor.launch === true,
    bubblewrap: bubblewrap && { option: bubblewrap.option as string, defaultPath: bubblewrap.default as string },
  };
}

/** Validates `sdkAlternatives`: groups of two or more peer dependency names, no name in two groups. */
function alternativesOf(
  value: unknown,
  sdks: Readonly<Record<string, string>>,
  fail: (why: string) => CliError,
): string[][] {
  const why = '"sdkAlternatives" must list groups of two or more of the package\'s SDK peer dependencies';
  if (!Array.isArray(value)) throw fail(why);
  const seen = new Set<string>();
  return value.map((group: unknown) => {
    if (!Array.isArray(group) || group.length < 2) throw fail(why);
    for (const name of group) {
      if (typeof name !== "string" || !(name in sdks) || seen.has(name)) throw fail(why);
      seen.add(name);
    }
    return group as string[];
  });
}

function objectOf(value: unknown, field: string, fail: (why: string) => CliError): Fields {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw fail(`"${field}" must be an object`);
  return value as Fields;
}

const TYPES: readonly OptionType[] = ["string", "integer", "boolean", "list"];
/** An option name, or a dotted path to a field of an object option (`backend.apiKey`). */
const OPTION_NAME = /^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)*$/;
/** Options every runtime shares, which the CLI sets through its own flags (`--owner`). */
const COMMON = new Set(["owner", "runBudgetMs", "maxOutputBytes", "timeouts"]);

function optionsOf(value: unknown, provider: string, fail: (why: string) => CliError): Record<string, OptionSpec> {
  const prefix = `SANDPORT_${provider.toUpperCase().replace(/-/g, "_")}_`;
  const options: Record<string, OptionSpec> = {};
  for (const [name, raw] of Object.entries(objectOf(value, "options", fail))) {
    if (!OPTION_NAME.test(name) || COMMON.has(name.split(".")[0]!))
      throw fail(`option name ${JSON.stringify(name)} is not allowed`);
    const spec = objectOf(raw, `options.${name}`, fail);
    if (typeof spec.env !== "string" || !spec.env.startsWith(prefix) || !/^[A-Z0-9_]+$/.test(spec.env)) {
      throw fail(`options.${name}.env must be an environment variable named ${prefix}<NAME>`);
    }
    const type = spec.type ?? "string";
    if (!TYPES.includes(type as OptionType)) throw fail(`options.${name}.type must be one of ${TYPES.join(", ")}`);
    for (const flag of ["secret", "required"] as const) {
      if (spec[flag] !== undefined && typeof spec[flag] !== "boolean")
        throw fail(`options.${name}.${flag} must be a boolean`);
    }
    for (const field of ["inspect", "default"] as const) {
      if (spec[field] !== undefined && typeof spec[field] !== "string")
        throw fail(`options.${name}.${field} must be a string`);
    }
    if (spec.default !== undefined && (spec.secret === true || spec.required === true)) {
      throw fail(`options.${name}.default makes no sense for a secret or required option`);
    }
    options[name] = {
      env: spec.env,
      type: type as OptionType,
      secret: spec.secret === true,
      required: spec.required === true,
      inspect: spec.inspect as string | undefined,
      default: spec.default as string | undefined,
    };
    if (options[name].default !== undefined) {
      try {
        readOptionValue(options[name], options[name].default, `options.${name}.default`);
      } catch (error) {
        throw fail(error instanceof Error ? error.message : String(error));
      }
    }
  }
  return options;
}

/**
 * The option of `descriptor` that an `--option` key names: the key itself, or
 * the key without a leading `<provider>.` scope. `undefined` when it names none.
 */
export function optionNamed(descriptor: ProviderDescriptor, key: string): string | undefined {
  if (key in descriptor.options) return key;
  const scope = `${descriptor.provider}.`;
  return key.startsWith(scope) && key.slice(scope.length) in descriptor.options ? key.slice(scope.length) : undefined;
}
