import type { Entry, Manifest } from "@openai/agents-core/sandbox";
import type { FileInput, SandboxHandle, SandboxRuntime } from "@sandport/core";
import type { AgentsSdk } from "./internal/sdk.js";

/** What materialising a manifest writes: the files, and the directories that must exist even when empty. */
export interface ManifestPlan {
  readonly files: FileInput[];
  readonly directories: string[];
}

const DEFAULT_FILE_MODE = 0o644;

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
      const mode =
        entry.permissions === undefined
          ? DEFAULT_FILE_MODE
          : sdk.permissionsForSandboxEntry(entry.permissions).toMode() & 0o7777;
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

/** Plans a whole manifest (see {@link planEntries}); also refuses manifest users and groups. */
export function planManifest(
  sdk: AgentsSdk,
  runtime: Pick<SandboxRuntime, "provider" | "mkdir">,
  manifest: Manifest,
): ManifestPlan {
  if (manifest.users.length > 0 || manifest.groups.length > 0) {
    throw new sdk.SandboxUnsupportedFeatureError("Sandport sandboxes cannot create manifest users or groups", {
      provider: runtime.provider,
    });
  }
  return planEntries(sdk, runtime, manifest.iterEntries());
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
