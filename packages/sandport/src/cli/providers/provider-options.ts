import { CliError } from "../cli-error.js";
import type { Redactor } from "../output/redactor.js";
import { optionNamed, type ProviderDescriptor } from "./descriptor.js";
import { readOptionValue, splitAssignment } from "./option-values.js";

/** What the command line adds to a provider's options. */
export interface ProviderSettings {
  /** The environment to read `SANDPORT_<P>_*` variables from. The CLI is the one place that reads them. */
  readonly env: NodeJS.ProcessEnv;
  /**
   * `--option KEY=VALUE` flags, in order; later ones win. `PROVIDER.KEY=VALUE`
   * sets an option of that provider only.
   */
  readonly options?: readonly string[];
  /**
   * The command works on several providers: an unscoped option that this
   * provider does not declare is someone else's, not an error (`load.ts` checks
   * that some provider declares it).
   */
  readonly shared?: boolean;
  /** `--endpoint URL`: sets every option the descriptor lists under `endpoint`. */
  readonly endpoint?: string | undefined;
  /** `--owner NAME`: the ownership boundary every runtime shares. */
  readonly owner?: string | undefined;
}

/** Where an option's value came from. */
export type OptionSource = "env" | "endpoint" | "option" | "default" | "inspect";

/** A provider's options as the CLI resolved them. */
export interface ProviderOptions {
  /** The options object handed to the runtime's constructor. */
  readonly values: Readonly<Record<string, unknown>>;
  /** Where each set option came from. */
  readonly sources: Readonly<Record<string, OptionSource>>;
  /** Environment variables of required options that are not set (names only). */
  readonly missing: readonly string[];
  /** Each credential's environment variable and whether it is set (never its value). */
  readonly credentials: readonly { readonly env: string; readonly present: boolean }[];
}

/**
 * Builds a provider's constructor options: its declared environment variables,
 * then `--endpoint`, then `--option` (most specific last), then `--owner`, then
 * the descriptor's defaults for what is still unset.
 * Credentials are registered with the redactor as they are read. With
 * `inspect`, a missing required option takes the descriptor's placeholder, for
 * a runtime that is only looked at, never called.
 */
export function resolveProviderOptions(
  descriptor: ProviderDescriptor,
  settings: ProviderSettings,
  redactor: Redactor,
  purpose: "use" | "inspect" = "use",
): ProviderOptions {
  const values: Record<string, unknown> = {};
  const sources: Record<string, OptionSource> = {};
  for (const [name, spec] of Object.entries(descriptor.options)) {
    const text = settings.env[spec.env];
    if (text === undefined || text === "") continue;
    if (spec.secret) redactor.add(text);
    values[name] = readOptionValue(spec, text, spec.env);
    sources[name] = "env";
  }
  if (settings.endpoint !== undefined && !(settings.shared && descriptor.endpoint.length === 0)) {
    if (descriptor.endpoint.length === 0) {
      throw new CliError("USAGE", `${descriptor.provider} has no endpoint to override (--endpoint)`);
    }
    if (!URL.canParse(settings.endpoint)) throw new CliError("USAGE", `--endpoint ${settings.endpoint} is not a URL`);
    for (const name of descriptor.endpoint) {
      values[name] = settings.endpoint;
      sources[name] = "endpoint";
    }
  }
  for (const assignment of settings.options ?? []) {
    const [key, text] = splitAssignment(assignment, "--option");
    const name = optionNamed(descriptor, key);
    const spec = name === undefined ? undefined : descriptor.options[name];
    if (name === undefined || !spec) {
      // Another provider's option: scoped to it (`local.root`), or, with several providers at once
      // (doctor, capabilities), one that only others declare.
      const mine = key.startsWith(`${descriptor.provider}.`);
      if (!mine && (settings.shared || key.includes("."))) continue;
      const known = Object.keys(descriptor.options).join(", ") || "none";
      throw new CliError(
        "BAD_OPTION",
        `--option ${key}: ${descriptor.provider} has no such option (options: ${known})`,
      );
    }
    if (spec.secret) {
      throw new CliError("BAD_OPTION", `--option ${name} is a credential: set ${spec.env} in the environment instead`);
    }
    values[name] = readOptionValue(spec, text, `--option ${name}`);
    sources[name] = "option";
  }
  if (settings.owner !== undefined) values.owner = settings.owner;
  for (const [name, spec] of Object.entries(descriptor.options)) {
    if (spec.default === undefined || values[name] !== undefined) continue;
    values[name] = readOptionValue(spec, spec.default, `the default of ${name}`);
    sources[name] = "default";
  }
  const missing: string[] = [];
  for (const [name, spec] of Object.entries(descriptor.options)) {
    if (!spec.required || values[name] !== undefined) continue;
    if (purpose === "inspect" && spec.inspect !== undefined) {
      values[name] = spec.inspect;
      sources[name] = "inspect";
    } else {
      missing.push(spec.env);
    }
  }
  const credentials = Object.values(descriptor.options)
    .filter((spec) => spec.secret)
    .map((spec) => ({ env: spec.env, present: (settings.env[spec.env] ?? "") !== "" }));
  return { values, sources, missing, credentials };
}

/** Throws `NOT_CONFIGURED` (exit 3) naming the missing variables, when a required option is unset. */
export function requireConfigured(descriptor: ProviderDescriptor, options: ProviderOptions): void {
  if (options.missing.length === 0) return;
  throw new CliError("NOT_CONFIGURED", `${descriptor.provider}: skipped, ${options.missing.join(", ")} not set`);
}
