import type { GrantedResources, SandboxHandle } from "@sandport/core";
import { handleRecipe } from "@sandport/core/adapter";

/** Provider name, in handles and errors. */
export const PROVIDER = "microsandbox";

/**
 * A handle to a microsandbox sandbox. Plain data; rebuild it in another
 * process with `getById`. Its `id` is the sandbox's name, by which the SDK
 * addresses it (the cloud's own id changes when a name is reused).
 */
export interface MicrosandboxHandle extends SandboxHandle {
  /** Always `"microsandbox"`. */
  readonly provider: "microsandbox";
}

/** The names this adapter gives (and accepts): a letter or digit, then letters, digits, `.`, `_`, `-`; 128 at most. */
const handles = handleRecipe(PROVIDER, {
  valid: /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/,
  refusal:
    "sandbox id must be a microsandbox name: 1-128 characters of [A-Za-z0-9._-], starting with a letter or digit",
});

/**
 * A handle for the sandbox `name` carrying the stored `labels` (reserved ones
 * are dropped) and, when given, what the record says it was granted.
 */
export function handleFor(
  name: string,
  labels: Readonly<Record<string, string>>,
  createdAt?: Date | null,
  resources?: GrantedResources,
): MicrosandboxHandle {
  const handle = handles.toHandle(name, labels, createdAt);
  return resources === undefined ? handle : { ...handle, resources };
}

/** The sandbox name of a handle: a microsandbox handle (`checkHandle`) whose id can be a sandbox name. */
export const sandboxNameOf = handles.idOf;

/**
 * Refuses (`INVALID_REQUEST`) an id that cannot be a sandbox name, before it
 * reaches a URL: names like `..`, `/etc` or `a/b` would otherwise address
 * other routes (`/v1/sandboxes/by-name/<name>`).
 */
export const validSandboxName = handles.validId;

/**
 * The labels a sandbox record carries, from the spec the SDK reports
 * (`configJson`); `{}` when it has none or cannot be read.
 */
export function storedLabels(configJson: string): Record<string, string> {
  const labels = specField(configJson, "labels");
  if (typeof labels !== "object" || labels === null || Array.isArray(labels)) return {};
  return Object.fromEntries(
    Object.entries(labels).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

/**
 * What a sandbox record says it was given (`resources: { vcpus, memory_mib }`
 * in its spec), as the port's limits; `undefined` when the spec has none.
 */
export function storedResources(configJson: string): GrantedResources | undefined {
  const resources = specField(configJson, "resources") as { vcpus?: unknown; memory_mib?: unknown } | undefined;
  if (typeof resources !== "object" || resources === null) return undefined;
  const granted = {
    ...(typeof resources.vcpus === "number" ? { cpus: resources.vcpus } : {}),
    ...(typeof resources.memory_mib === "number" ? { memoryMiB: resources.memory_mib } : {}),
  };
  return Object.keys(granted).length === 0 ? undefined : granted;
}

/** The create-time environment a sandbox record carries (`[{ key, value }]` in its spec). */
export function storedEnv(configJson: string): Record<string, string> {
  const env = specField(configJson, "env");
  if (!Array.isArray(env)) return {};
  const found: Record<string, string> = {};
  for (const entry of env) {
    const { key, value } = (entry ?? {}) as { key?: unknown; value?: unknown };
    if (typeof key === "string" && typeof value === "string") found[key] = value;
  }
  return found;
}

function specField(configJson: string, field: string): unknown {
  try {
    const spec = JSON.parse(configJson) as Record<string, unknown> | null;
    return spec?.[field];
  } catch {
    return undefined;
  }
}
