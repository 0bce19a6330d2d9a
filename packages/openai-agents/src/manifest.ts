import type { Entry, Manifest } from "@openai/agents-core/sandbox";
import type { FileInput, SandboxHandle, SandboxRuntime } from "@sandport/core";
import type { AgentsSdk } from "./internal/sdk.js";

/** What materialising a manifest writes: the files, and the directories that must exist even when empty. */
export interface ManifestPlan {
  readonly files: FileInput[];
  readonly directories: string[];
}

/**
 * Plans the writes for `entries` placed under `prefix` (workspace-relative),
 * refusing, before anything is written, what the port cannot do faithfully:
 * host files and directories (`local_file`, `local_dir`: the host is not the
 * sandbox), git checkouts, mounts, entry groups and ownership, and empty
 * directories on a runtime without `mkdir`.
 */
export function planEntries(
  sdk: AgentsSdk,
  runtime: Pick<SandboxRuntime, "provider" | "mkdir">,
  entries: Iterable<{ readonly logicalPath: string; readonly entry: Entry }>,
): ManifestPlan {
  const plan: ManifestPlan = { files: [], directories: [] };
  for (const { logicalPath, entry } of entries) {
    const refuse = (why: string) =>
      new sdk.SandboxUnsupportedFeatureError(`Sandport sandboxes cannot materialize ${logicalPath}: ${why}`, {
        provider: runtime.provider,
        path: logicalPath,
        entryType: entry.type,
      });
    if (entry.group !== undefined) throw refuse("entry groups (ownership) are not part of the Sandport port");
    if (entry.type === "file") {
      // Without permissions, the framework's default for an entry: 0755 (its sandboxes write scripts runnable).
      const mode = sdk.permissionsForSandboxEntry(entry.permissions).toMode() & 0o7777;
      plan.files.push({ path: logicalPath, content: entry.content, mode });
    } else if (entry.type === "dir") {
      if (entry.permissions !== undefined) throw refuse("directory permissions cannot be set through the port");
      if (Object.keys(entry.children ?? {}).length === 0) {
        if (typeof runtime.mkdir !== "function")
          throw refuse(`${runtime.provider} has no mkdir for an empty directory`);
        plan.directories.push(logicalPath);
      }
    } else {
      throw refuse(`entries of type ${entry.type} are not supported by the Sandport bridge`);
    }
  }
  return plan;
}

/**
 * Plans a whole manifest (see {@link planEntries}); also refuses manifest
 * users and groups, and the path grants the port cannot honour (see
 * {@link refuseUnreachableGrants}).
 */
export function planManifest(
  sdk: AgentsSdk,
  runtime: Pick<SandboxRuntime, "provider" | "mkdir" | "workspaceRoot">,
  manifest: Manifest,
): ManifestPlan {
  if (manifest.users.length > 0 || manifest.groups.length > 0) {
    throw new sdk.SandboxUnsupportedFeatureError("Sandport sandboxes cannot create manifest users or groups", {
      provider: runtime.provider,
    });
  }
  refuseUnreachableGrants(sdk, runtime, manifest);
  return planEntries(sdk, runtime, manifest.iterEntries());
}

/**
 * Refuses `extraPathGrants` the port cannot honour, with the framework's
 * unsupported-feature error: a grant with a `hostPath` (a host directory
 * shown at another path: the host is not the sandbox, as the framework's
 * UnixLocal client also refuses), and a grant of a path outside the
 * workspace root (the port's file calls reach only the workspace, so the file
 * tools could not use it). A grant inside the workspace needs nothing.
 */
function refuseUnreachableGrants(
  sdk: AgentsSdk,
  runtime: Pick<SandboxRuntime, "provider" | "workspaceRoot">,
  manifest: Manifest,
): void {
  for (const grant of manifest.extraPathGrants) {
    if (grant.hostPath !== undefined) {
      throw new sdk.SandboxUnsupportedFeatureError(
        `Sandport sandboxes cannot grant ${grant.path} from host path ${grant.hostPath}: the host is not the sandbox`,
        { provider: runtime.provider, feature: "manifest.extraPathGrants.hostPath", path: grant.path },
      );
    }
    const root = runtime.workspaceRoot.replace(/\/+$/, "");
    if (grant.path !== root && !grant.path.startsWith(`${root}/`)) {
      throw new sdk.SandboxUnsupportedFeatureError(
        `Sandport sandboxes cannot grant ${grant.path}: the port's file calls reach only the workspace ${root}`,
        { provider: runtime.provider, feature: "manifest.extraPathGrants", path: grant.path },
      );
    }
  }
}

/** The framework's `SandboxConcurrencyLimits`: how many manifest entries and `local_dir` files are written at once. */
export interface ConcurrencyLimits {
  readonly manifestEntries?: number;
  readonly localDirFiles?: number;
}

/**
 * Refuses invalid concurrency limits (each given limit must be a finite
 * number of at least 1, the framework's own rule) with the framework's
 * unsupported-feature error. Valid limits need nothing: the bridge writes a
 * manifest's files in one `writeFiles` call, one write in flight.
 */
export function checkConcurrencyLimits(sdk: AgentsSdk, provider: string, limits: ConcurrencyLimits | undefined): void {
  for (const [name, value] of Object.entries(limits ?? {})) {
    if (name !== "manifestEntries" && name !== "localDirFiles") continue;
    if (value === undefined || (typeof value === "number" && Number.isFinite(value) && value >= 1)) continue;
    throw new sdk.SandboxUnsupportedFeatureError(
      `Sandbox concurrency limits must be positive numbers: concurrencyLimits.${name} is ${String(value)}`,
      { provider, feature: "concurrencyLimits", [name]: value },
    );
  }
}

/** Writes a plan: every file in one `writeFiles` call, then the empty directories. */
export async function applyPlan<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
  handle: H,
  plan: ManifestPlan,
): Promise<void> {
  if (plan.files.length > 0) await runtime.writeFiles(handle, plan.files);
  for (const directory of plan.directories) await runtime.mkdir?.(handle, directory);
}

/**
 * The manifest as this runtime sees it: its root must be the runtime's
 * workspace root. The framework's default root (`/workspace`) is moved to the
 * runtime's; any other root is refused, since the port has one workspace.
 */
export function rootedManifest(sdk: AgentsSdk, manifest: Manifest, workspaceRoot: string, provider: string): Manifest {
  if (manifest.root === workspaceRoot) return manifest;
  if (manifest.root !== "/workspace") {
    throw new sdk.SandboxConfigurationError(
      `the manifest root ${manifest.root} is not the sandbox's workspace root ${workspaceRoot}`,
      { provider, root: manifest.root, workspaceRoot },
    );
  }
  return new sdk.Manifest({
    version: manifest.version,
    root: workspaceRoot,
    entries: manifest.entries,
    environment: manifest.environment,
    users: manifest.users,
    groups: manifest.groups,
    extraPathGrants: manifest.extraPathGrants,
    remoteMountCommandAllowlist: manifest.remoteMountCommandAllowlist,
  });
}
