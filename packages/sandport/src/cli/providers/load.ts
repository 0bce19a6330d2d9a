import { CliError } from "../cli-error.js";
import type { CliContext, ProviderFlags } from "../context.js";
import { optionNamed, type ProviderDescriptor } from "./descriptor.js";
import { splitAssignment } from "./option-values.js";
import type { ProviderSettings } from "./provider-options.js";
import { findProviders, selectProviders } from "./registry.js";

/**
 * The providers a command's flags select (`--provider`, or every installed
 * one), after checking that each `--option` names an option one of them declares.
 */
export function providersFor(context: CliContext, flags: ProviderFlags): ProviderDescriptor[] {
  const selected = selectProviders(findProviders(context.manifestPath), flags.provider);
  for (const assignment of flags.option) {
    const [key] = splitAssignment(assignment, "--option");
    const declared = selected.some((descriptor) => optionNamed(descriptor, key) !== undefined);
    if (!declared) {
      const known = selected.flatMap((descriptor) =>
        Object.keys(descriptor.options).map((option) => `${descriptor.provider}.${option}`),
      );
      throw new CliError(
        "BAD_OPTION",
        `--option ${key}: no selected provider declares it (options: ${known.join(", ")})`,
      );
    }
  }
  // Their runtimes' messages are printed in the command line's terms (`--option`, not the constructor's).
  for (const descriptor of selected) context.terminal.syntax.add(descriptor);
  return selected;
}

/** The settings the common provider flags carry, with the environment the CLI reads credentials from. */
export function settingsFor(context: CliContext, flags: ProviderFlags): ProviderSettings {
  return {
    env: context.env,
    options: flags.option,
    endpoint: flags.endpoint,
    owner: flags.owner,
    shared: flags.provider === undefined,
  };
}
