import type { LaunchSpec, SandboxHandle, SandboxRuntime } from "@sandport/core";
import type { TanStackSandboxSdk } from "./internal/sdk.js";

/** What every part of one TanStack AI handle shares: the runtime, its sandbox, the loaded framework, the names. */
export interface HandleContext<H extends SandboxHandle = SandboxHandle> {
  /** The runtime the sandbox lives in. */
  readonly runtime: SandboxRuntime<H>;
  /** The sandbox. */
  readonly sandbox: H;
  /** `@tanstack/ai-sandbox`, loaded. */
  readonly sdk: TanStackSandboxSdk;
  /** The TanStack AI provider name (`sandport-<runtime provider>`), named in unsupported errors. */
  readonly providerName: string;
  /** Where commands without a `cwd` start, and a relative `cwd` resolves against (absolute, in the sandbox). */
  readonly baseDirectory: string;
  /** Limit of commands and background processes, when the provider was given one. */
  readonly commandTimeoutMs?: number;
  /**
   * How a fork of the sandbox is launched: the provider's `launch`, its `env`
   * the one this sandbox was launched with where the handle knows it (it
   * created, restored or forked the sandbox), else the provider's.
   */
  readonly forkLaunch: LaunchSpec;
}

/** TanStack AI's `UnsupportedCapabilityError` for `capability`, saying which port method is missing. */
export function unsupportedCapability(context: HandleContext, capability: string, missing: string): Error {
  return new context.sdk.UnsupportedCapabilityError(
    context.providerName,
    capability,
    `The Sandport runtime "${context.runtime.provider}" has no ${missing}.`,
  );
}

/** The port method `name` of the context's runtime, or TanStack AI's unsupported error for `capability`. */
export function requireMethod<H extends SandboxHandle, K extends keyof SandboxRuntime<H>>(
  context: HandleContext<H>,
  name: K,
  capability: string,
): NonNullable<SandboxRuntime<H>[K]> {
  const method = context.runtime[name];
  if (typeof method !== "function") throw unsupportedCapability(context, capability, `\`${String(name)}\``);
  return (method as (...args: never[]) => unknown).bind(context.runtime) as NonNullable<SandboxRuntime<H>[K]>;
}
