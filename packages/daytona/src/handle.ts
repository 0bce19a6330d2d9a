import type { GrantedResources, SandboxHandle } from "@sandport/core";
import { handleRecipe } from "@sandport/core/adapter";

/** Provider name, in handles and errors. */
export const PROVIDER = "daytona";

/**
 * The label the Daytona SDK sets on every sandbox it creates (to the code
 * language, `python` by default). A caller's label of that name would be
 * overwritten, so launches refuse it and handles leave it out.
 */
export const SDK_LANGUAGE_LABEL = "code-toolbox-language";

/**
 * A handle to a Daytona sandbox. Plain data; rebuild it in another process
 * with `getById`. A sandbox's id never changes: `DaytonaRuntime.recreate`
 * resolves a new handle for the sandbox that replaces an unusable one.
 */
export interface DaytonaHandle extends SandboxHandle {
  /** The sandbox id. */
  readonly id: string;
  /** Always `"daytona"`. */
  readonly provider: "daytona";
}

/** What a handle is built from: a sandbox as the SDK or the API reports it. */
export interface SandboxIdentity {
  readonly id: string;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly createdAt?: string | undefined;
  /** vCPUs, as Daytona reports the sandbox's size. */
  readonly cpu?: number | undefined;
  /** Memory in GiB, as Daytona reports it. */
  readonly memory?: number | undefined;
  /** Disk in GiB, as Daytona reports it. */
  readonly disk?: number | undefined;
}

const handles = handleRecipe(PROVIDER, {
  valid: /^(?!\.\.?$)[A-Za-z0-9_.-]{1,128}$/,
  refusal: "sandbox id must be 1-128 characters of [A-Za-z0-9_.-], and not . or ..",
});

/** A handle from what Daytona reports about a sandbox (the caller checks ownership first). */
export function handleFromSandbox(sandbox: SandboxIdentity): DaytonaHandle {
  const { [SDK_LANGUAGE_LABEL]: _language, ...labels } = sandbox.labels ?? {};
  const handle = handles.toHandle(sandbox.id, labels, sandbox.createdAt);
  const resources = grantedResources(sandbox);
  return resources === undefined ? handle : { ...handle, resources };
}

/**
 * What Daytona gave the sandbox, from the sizes its answer reports (vCPUs,
 * memory and disk in GiB), in the port's units; `undefined` when it reports none.
 */
function grantedResources(sandbox: SandboxIdentity): GrantedResources | undefined {
  const size = (value: number | undefined) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
  const cpus = size(sandbox.cpu);
  const memory = size(sandbox.memory);
  const disk = size(sandbox.disk);
  const granted: GrantedResources = {
    ...(cpus === undefined ? {} : { cpus }),
    ...(memory === undefined ? {} : { memoryMiB: memory * 1024 }),
    ...(disk === undefined ? {} : { diskMiB: disk * 1024 }),
  };
  return Object.keys(granted).length === 0 ? undefined : Object.freeze(granted);
}

/** The sandbox id of a handle: a Daytona handle (`checkHandle`) whose id can be a Daytona sandbox id. */
export const sandboxIdOf = handles.idOf;

/**
 * Refuses (`INVALID_REQUEST`) an id that cannot name a Daytona sandbox,
 * before it reaches a URL: `..`, `/etc` or `a/b` would address other routes.
 */
export const validSandboxId = handles.validId;
