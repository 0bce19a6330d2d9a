import type { Manifest } from "@openai/agents-core/sandbox";
import type { AgentsSdk } from "./internal/sdk.js";

/**
 * Whether the manifest says `key`'s value must never be stored: an entry
 * marked `ephemeral`, or a secret reference (`EnvValueReference`), which is
 * resolved again wherever the session is rebuilt.
 */
function unstorable(sdk: AgentsSdk, manifest: Manifest, key: string): boolean {
  const declared = manifest.environment[key];
  if (declared === undefined) return false;
  return sdk.isEnvValueReference(declared) || declared.ephemeral === true;
}

/**
 * The part of a session's resolved environment that its serialised state may
 * keep (RunState is written to disk, logs and databases): every value except
 * those {@link unstorable} by the manifest, so a credential given as an
 * ephemeral entry never leaves the process. Values a runtime added that the
 * manifest does not declare are kept.
 */
export function persistentEnvironment(
  sdk: AgentsSdk,
  manifest: Manifest,
  environment: Readonly<Record<string, string>>,
): Record<string, string> {
  return Object.fromEntries(Object.entries(environment).filter(([key]) => !unstorable(sdk, manifest, key)));
}

/**
 * The environment of a session rebuilt from serialised state: the stored
 * values (less any the manifest marks unstorable, should an older record hold
 * one) plus the manifest's secret references, resolved again. Ephemeral
 * entries are gone: they were never stored.
 */
export async function restoredEnvironment(
  sdk: AgentsSdk,
  manifest: Manifest,
  stored: unknown,
): Promise<Record<string, string>> {
  const values = Object.entries(isRecord(stored) ? stored : {}).filter(
    (pair): pair is [string, string] => typeof pair[1] === "string",
  );
  const restored = persistentEnvironment(sdk, manifest, Object.fromEntries(values));
  for (const [key, declared] of Object.entries(manifest.environment)) {
    if (sdk.isEnvValueReference(declared)) restored[key] = await declared.resolve();
  }
  return restored;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
