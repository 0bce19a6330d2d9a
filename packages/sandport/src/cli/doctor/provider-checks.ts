import { SandportError } from "@sandport/core";
import { satisfiesNodeRange } from "@sandport/core/adapter";
import { formatDuration } from "../duration.js";
import type { Redactor } from "../output/redactor.js";
import { createRuntime } from "../providers/create-runtime.js";
import type { ProviderDescriptor } from "../providers/descriptor.js";
import { type ProviderSettings, resolveProviderOptions } from "../providers/provider-options.js";
import { type SdkRequirement, sdkRequirements } from "../providers/versions.js";
import { bubblewrapCheck } from "./bubblewrap-check.js";
import type { CheckStatus, DoctorCheck } from "./check.js";

/**
 * Everything the doctor checks for one provider: the adapter, its SDKs
 * (installed? in range? this Node?), which credentials are set (names only),
 * the options, the bubblewrap it needs, and, where launching costs nothing, a
 * throwaway sandbox that runs `true`. `strict` (the provider was asked for by
 * name) turns a missing SDK or credential, or an SDK this Node cannot run,
 * from a warning into a failure.
 */
export async function providerChecks(target: {
  readonly descriptor: ProviderDescriptor;
  readonly settings: ProviderSettings;
  readonly redactor: Redactor;
  readonly strict: boolean;
}): Promise<DoctorCheck[]> {
  const { descriptor, settings, redactor, strict } = target;
  const scope = descriptor.provider;
  const missingStatus: CheckStatus = strict ? "fail" : "warn";
  const checks: DoctorCheck[] = [
    { scope, name: "adapter", status: "ok", detail: `${descriptor.packageName}@${descriptor.version}` },
  ];
  for (const requirement of sdkRequirements(descriptor)) checks.push(sdkCheck(scope, requirement, missingStatus));

  let options: ReturnType<typeof resolveProviderOptions>;
  try {
    options = resolveProviderOptions(descriptor, settings, redactor, "inspect");
  } catch (error) {
    checks.push({ scope, name: "options", status: "fail", detail: messageOf(error) });
    return checks;
  }
  for (const credential of options.credentials) {
    checks.push({
      scope,
      name: "credential",
      status: credential.present ? "ok" : missingStatus,
      detail: `${credential.env} ${credential.present ? "is set" : "is not set"}`,
      ...(credential.present ? {} : { fix: `export ${credential.env}=...` }),
    });
  }
  const settingsSet = Object.values(descriptor.options)
    .filter((spec) => !spec.secret && (settings.env[spec.env] ?? "") !== "")
    .map((spec) => spec.env);
  if (settingsSet.length > 0)
    checks.push({ scope, name: "settings", status: "info", detail: `${settingsSet.join(", ")} set` });

  if (descriptor.bubblewrap) {
    const { option, defaultPath } = descriptor.bubblewrap;
    const path = typeof options.values[option] === "string" ? (options.values[option] as string) : defaultPath;
    const env = descriptor.options[option]?.env ?? "";
    checks.push(bubblewrapCheck(path, { provider: scope, env, option }));
  }
  try {
    await createRuntime(descriptor, settings, redactor, "inspect");
  } catch (error) {
    checks.push({ scope, name: "runtime", status: "fail", detail: messageOf(error) });
    return checks;
  }
  if (descriptor.doctorLaunch && options.missing.length === 0)
    checks.push(await launchCheck(descriptor, settings, redactor));
  return checks;
}

/**
 * One SDK the adapter needs, as one check even when it is published under
 * several names (any one satisfies it): the installation the adapter would
 * load, in range and runnable on this Node; or, with none installed, the
 * command that installs the preferred name.
 */
function sdkCheck(scope: string, requirement: SdkRequirement, missingStatus: CheckStatus): DoctorCheck {
  const name = `sdk ${requirement.names.join(" or ")}`;
  const sdk = requirement.loaded;
  const several = requirement.names.length > 1;
  if (sdk === undefined) {
    const [preferred] = requirement.installations;
    const detail = !several
      ? "not installed"
      : requirement.names.length === 2
        ? "neither is installed"
        : "none is installed";
    return { scope, name, status: missingStatus, detail, fix: `npm install ${preferred?.name}@"${preferred?.range}"` };
  }
  const version = several ? `${sdk.name} ${sdk.version}` : `${sdk.version}`;
  const install = `npm install ${sdk.name}@"${sdk.range}"`;
  if (!satisfiesNodeRange(sdk.version!, sdk.range)) {
    return { scope, name, status: "fail", detail: `${version} is outside ${sdk.range}`, fix: install };
  }
  if (sdk.node !== undefined && !satisfiesNodeRange(process.versions.node, sdk.node)) {
    const detail = `${version} needs Node ${sdk.node}; this is ${process.versions.node}`;
    return { scope, name, status: missingStatus, detail, fix: `install Node ${sdk.node}` };
  }
  return { scope, name, status: "ok", detail: version };
}

/** Launches a throwaway sandbox, runs `true` in it and destroys it: the proof that the provider works here. */
async function launchCheck(
  descriptor: ProviderDescriptor,
  settings: ProviderSettings,
  redactor: Redactor,
): Promise<DoctorCheck> {
  const scope = descriptor.provider;
  const started = performance.now();
  try {
    const { runtime } = await createRuntime(descriptor, settings, redactor, "use");
    const handle = await runtime.launch({ labels: { "sandport-doctor": "launch" } });
    try {
      const result = await runtime.exec(handle, { argv: ["true"], timeoutMs: 30_000 });
      if (result.exitCode !== 0) throw new Error(`\`true\` exited ${result.exitCode}`);
    } finally {
      await runtime.destroy(handle);
    }
    const took = formatDuration(performance.now() - started);
    return { scope, name: "launch", status: "ok", detail: `launched a sandbox, ran \`true\`, destroyed it (${took})` };
  } catch (error) {
    return { scope, name: "launch", status: "fail", detail: messageOf(error) };
  }
}

function messageOf(error: unknown): string {
  if (SandportError.isInstance(error)) return `${error.message} [${error.code}]`;
  return error instanceof Error ? error.message : String(error);
}
