import type { SandboxRuntime } from "@sandport/core";
import { CliError } from "../cli-error.js";
import type { Redactor } from "../output/redactor.js";
import type { ProviderDescriptor } from "./descriptor.js";
import { nestOptions } from "./option-values.js";
import {
  type ProviderOptions,
  type ProviderSettings,
  requireConfigured,
  resolveProviderOptions,
} from "./provider-options.js";

/** A constructed runtime and the options it was built from. */
export interface ProviderRuntime {
  readonly descriptor: ProviderDescriptor;
  readonly runtime: SandboxRuntime;
  readonly options: ProviderOptions;
}

/**
 * Imports the adapter package (which loads no vendor SDK) and constructs its
 * runtime with options passed explicitly; nothing reaches the adapter through
 * the environment. `use` refuses, with exit 3, when a credential is missing;
 * `inspect` builds a runtime that is only looked at (its constructor does no I/O).
 */
export async function createRuntime(
  descriptor: ProviderDescriptor,
  settings: ProviderSettings,
  redactor: Redactor,
  purpose: "use" | "inspect" = "use",
): Promise<ProviderRuntime> {
  const options = resolveProviderOptions(descriptor, settings, redactor, purpose);
  requireConfigured(descriptor, options);
  const module = (await import(descriptor.packageName)) as Record<string, unknown>;
  const Runtime = module[descriptor.runtimeExport];
  if (typeof Runtime !== "function") {
    throw new CliError(
      "DESCRIPTOR_INVALID",
      `${descriptor.packageName} does not export ${descriptor.runtimeExport}, which its "sandport" descriptor names`,
    );
  }
  const runtime = new (Runtime as new (options: unknown) => SandboxRuntime)(nestOptions(options.values));
  return { descriptor, runtime, options };
}
