import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { SandportError } from "@sandport/core";
import { createSdkLoader, type SdkLoader } from "@sandport/core/adapter";
import type { MicrosandboxSdk } from "./sdk-types.js";

/** What `MicrosandboxRuntimeOptions.sdk` takes: the SDK slice itself, or a function that loads it. */
export type MicrosandboxSdkSource = MicrosandboxSdk | (() => Promise<MicrosandboxSdk>);

/** What the loader needs to know besides the SDK source. */
export interface SdkLoaderSettings {
  /** The backend the runtime is bound to: a local one also needs a usable `/dev/kvm`. */
  readonly backend: "local" | "cloud";
  /** Replaces importing the SDK (tests, bundlers). */
  readonly source?: MicrosandboxSdkSource | undefined;
  /**
   * Why the local backend cannot boot microVMs here, or `undefined` when it
   * can as far as can be told without booting one. Default: {@link probeKvm}
   * when the SDK is imported; none for an injected SDK, which boots nothing
   * this adapter knows of.
   */
  readonly probeKvm?: () => Promise<string | undefined>;
}

/**
 * Imports the SDK: the module and, from its own `microsandbox/native` entry,
 * the native backend scope (`pushDefaultBackend` / `popDefaultBackend`),
 * which the module does not re-export. The only runtime import of the SDK.
 */
async function importMicrosandbox(): Promise<MicrosandboxSdk> {
  const [module, native] = await Promise.all([import("microsandbox"), import("microsandbox/native")]);
  const scope = (native as { default?: unknown }).default ?? native;
  return { Sandbox: module.Sandbox, native: scope as MicrosandboxSdk["native"] };
}

/**
 * The loader of the `microsandbox` SDK. A failure is `SDK_UNAVAILABLE` naming
 * the most likely cause: this Node (the SDK needs Node >= 22), a missing
 * platform package (the native addon, `msb` and the guest kernel ship in
 * `@superradcompany/microsandbox-<platform>`, an optional dependency that npm
 * skips under an older Node), or, for the local backend, no usable `/dev/kvm`.
 */
export function createMicrosandboxSdkLoader(settings: SdkLoaderSettings): SdkLoader<MicrosandboxSdk> {
  const base = createSdkLoader<MicrosandboxSdk>({
    provider: "microsandbox",
    adapterPackage: "@sandport/microsandbox",
    range: ">=0.6.18 <0.7",
    packages: [{ name: "microsandbox", load: importMicrosandbox }],
    requiredMembers: [
      "Sandbox.builder",
      "Sandbox.get",
      "Sandbox.start",
      "Sandbox.remove",
      "Sandbox.listWith",
      "native.pushDefaultBackend",
      "native.popDefaultBackend",
    ],
    node: ">=22",
    ...(settings.source === undefined ? {} : { source: settings.source }),
  });
  const probe = settings.probeKvm ?? (settings.source === undefined ? probeKvm : async () => undefined);
  let checked: Promise<void> | undefined;
  const load = async (): Promise<MicrosandboxSdk> => {
    let sdk: MicrosandboxSdk;
    try {
      sdk = await base();
    } catch (error) {
      throw explainPlatformPackage(error);
    }
    if (settings.backend === "local") {
      checked ??= probe().then((problem) => {
        if (problem !== undefined) throw noKvm(problem);
      });
      checked.catch(() => {
        checked = undefined;
      });
      await checked;
    }
    return sdk;
  };
  return Object.assign(load, { packageNames: base.packageNames, range: base.range });
}

/**
 * Why `/dev/kvm` cannot serve microVMs, or `undefined`. Opening it for
 * reading and writing is what the local backend's `msb` does first; a
 * machine without hardware virtualisation has no such device. (A device that
 * opens but cannot run the guest kernel is only found by booting one.)
 */
export async function probeKvm(): Promise<string | undefined> {
  if (process.platform !== "linux") return undefined;
  try {
    await access("/dev/kvm", constants.R_OK | constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return code === "ENOENT" ? "/dev/kvm does not exist" : `/dev/kvm is not readable and writable (${String(code)})`;
  }
}

const NATIVE_BINDING = /Cannot find native binding|Failed to load native binding|@superradcompany\/microsandbox-/i;

/** The kit's `SDK_UNAVAILABLE`, with the platform package named when the native addon is what failed to load. */
function explainPlatformPackage(error: unknown): unknown {
  if (!SandportError.isInstance(error) || error.code !== "SDK_UNAVAILABLE") return error;
  if (!causeChain(error).some((cause) => NATIVE_BINDING.test(cause))) return error;
  const platform = `@superradcompany/microsandbox-${platformTriple()}`;
  return new SandportError({
    code: "SDK_UNAVAILABLE",
    provider: "microsandbox",
    retryable: false,
    cause: error,
    message:
      `${error.message} The native addon did not load: its platform package ${platform} (the addon, msb ` +
      `and the guest kernel) is missing, which is what npm does when it installs under a Node older than 22 ` +
      `(the package declares engines >= 22). Reinstall with Node 22, or add ${platform} explicitly.`,
    details: { ...error.details, platformPackage: platform },
  });
}

function noKvm(problem: string): SandportError {
  return new SandportError({
    code: "SDK_UNAVAILABLE",
    provider: "microsandbox",
    retryable: false,
    message:
      `the microsandbox local backend runs each sandbox in a KVM microVM, but ${problem}: this machine has no ` +
      "usable hardware virtualisation. Use the cloud backend, or a machine (or VM) with KVM.",
    details: { backend: "local" },
  });
}

function causeChain(error: unknown): string[] {
  const messages: string[] = [];
  for (let current = error, depth = 0; current && depth < 6; depth++) {
    const message = (current as { message?: unknown }).message;
    if (typeof message === "string") messages.push(message);
    current = (current as { cause?: unknown }).cause;
  }
  return messages;
}

/** The napi-rs platform triple the SDK's optional dependencies are named after. */
function platformTriple(): string {
  const { platform, arch } = process;
  if (platform === "linux") return `${platform}-${arch}-gnu`;
  if (platform === "win32") return `${platform}-${arch}-msvc`;
  return `${platform}-${arch}`;
}
