import {
  invalidRequest,
  type LaunchSpec,
  type OpOptions,
  quoteShellArg,
  SandportError,
  unsupported,
} from "@sandport/core";
import { createCallBudget, launchWithReclaim, type OperationCall } from "@sandport/core/adapter";
import { freestyleCapabilities } from "./capabilities.js";
import type { FreestyleContext } from "./context.js";
import { mapFreestyleError } from "./errors.js";
import { API_STDIN_BYTES, launchEnvPath } from "./exec.js";
import { type FreestyleHandle, grantedResources, PROVIDER } from "./handle.js";
import { deleteVm } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import { firewallRules } from "./network-plan.js";
import { fromHome, type ResolvedOptions } from "./options.js";
import { launchMetadata, slugFor } from "./ownership.js";
import { runScript } from "./run-script.js";
import { assertRestorable, snapshotNotFound } from "./snapshots.js";

/** Longest launch key Freestyle's metadata can hold. */
const MAX_LAUNCH_KEY = 63;
/**
 * Creates a VM carrying the ownership marks (metadata and a slug under the
 * name prefix; see `ownership.ts`), the launch key and the caller's labels,
 * with every lifetime field and the firewall sent explicitly (an allow list
 * as one rule per CIDR range). That is the launch's only request, but for
 * a launch env, written to its file (with the workspace made) by one command
 * after it, and a VM booted from a snapshot, whose source's env file that
 * command removes. The workspace is otherwise made by its first use, within
 * that call's own request (a command run in it, the symlink check of a file
 * call, a file written there).
 * With `from`, the VM boots from that snapshot, proven ours by one `GET`
 * first (`NOT_FOUND` otherwise, or when the create finds it deleted since).
 *
 * The create request is not cancelled when the caller's signal or deadline
 * fires (the call still rejects at once): the API finishes a create anyway,
 * so it runs on, and whatever it produces is destroyed in the background
 * (`launchWithReclaim`; `settle()` waits for it). A failure after the VM
 * exists destroys it too. A create that fails with an unknown outcome (lost
 * response, 5xx) is searched for by launch key in the background, with
 * backoff, until the listing can be trusted, and what it made is destroyed.
 */
export function launch(context: FreestyleContext, spec?: LaunchSpec, op?: OpOptions): Promise<FreestyleHandle> {
  const { options } = context;
  return launchWithReclaim(context, spec, op, {
    networkPolicy: freestyleCapabilities.modes.networkPolicy,
    restoresSnapshots: true,
    plan: (valid, launchKey) => {
      if (valid.from !== undefined && valid.template !== undefined) {
        throw invalidRequest(
          "template and from are exclusive: a VM boots from one snapshot",
          { field: "template" },
          PROVIDER,
        );
      }
      if (valid.resources !== undefined) {
        throw unsupported(
          PROVIDER,
          "resource limits",
          "a VM's size comes from its snapshot (freestyle/ubuntu-sm to -3xl)",
        );
      }
      if (valid.ports !== undefined && valid.ports.length > 0) {
        throw unsupported(PROVIDER, "declared ports", "this runtime exposes no ports (it has no portEndpoint)");
      }
      if (launchKey.length > MAX_LAUNCH_KEY) {
        throw invalidRequest(`launchKey must be at most ${MAX_LAUNCH_KEY} characters on Freestyle`, {}, PROVIDER);
      }
      return {
        metadata: launchMetadata(options.owner, valid.labels, launchKey),
        setup: setupScript(options, valid.env, valid.from !== undefined),
      };
    },
    // Not bound to the caller: a create already sent is followed to its end (through the SDK's polling,
    // for a slow one) for as long as the cleanup may take, so what it makes can be destroyed by id.
    // A snapshot to boot from is proven ours first (NOT_FOUND otherwise), before anything is created.
    load: async ({ spec: valid }, call) => {
      if (valid.from !== undefined) await assertRestorable(context, valid.from, call);
      return context.client(createCallBudget(options.orphanCleanupMs));
    },
    create: (client, { spec: valid, launchKey, plan }) =>
      client.vms
        .create({
          snapshotId: valid.from ?? valid.template ?? options.snapshot,
          slug: slugFor(options.namePrefix, options.owner, launchKey),
          metadata: plan.metadata,
          ttlSeconds: Math.ceil((valid.lifetimeMs ?? options.lifetimeMs) / 1000),
          ...options.persistence,
          firewall: { rules: firewallRules(valid.network, options.network) },
        })
        .catch((error: unknown) => {
          // Deleted since it was checked: Freestyle refused the create, so nothing was made.
          const code = (error as { code?: unknown }).code;
          if (valid.from !== undefined && code === "SNAPSHOT_NOT_FOUND") throw snapshotNotFound(valid.from, error);
          throw error;
        }),
    idOf: (vm) => vm.vmId,
    hint: (error, launchKey) =>
      (error as { code?: unknown }).code === "SLUG_TAKEN"
        ? `a VM with launch key ${launchKey} exists already: a launch key is used once`
        : undefined,
    setup: async ({ vmId, data }, { plan, labels }, call) => {
      if (plan.setup !== undefined) await runSetup(context, vmId, plan.setup, call);
      const resources = grantedResources(data);
      return { id: vmId, provider: PROVIDER, labels, ...(resources === undefined ? {} : { resources }) };
    },
    destroy: (vmId, budget) => deleteVm(context, vmId, budget),
    findByLaunchKey: (key, budget) => findByLaunchKey(context, key, budget),
  });
}

/** What a new VM needs before it can run commands: the workspace, and the launch env file. */
interface SetupScript {
  readonly command: string;
  /** The env file's content, passed as the command's stdin (never in the command line). */
  readonly stdin?: Uint8Array;
}

/**
 * The launch's one command, when it needs one: when the launch has an env,
 * write it (mode 0600, outside the workspace) as `export NAME='value'` lines
 * that every command sources first, making the workspace on the way. A VM
 * booted from a snapshot has the source's disk, env file included: without an
 * env of its own, that file is removed, so the source's env never leaks into
 * it. Neither: no command (`undefined`); the workspace waits for its first use.
 */
function setupScript(
  options: ResolvedOptions,
  env: Readonly<Record<string, string>> | undefined,
  restored: boolean,
): SetupScript | undefined {
  const workspace = quoteShellArg(fromHome(options, options.workspaceRoot));
  const entries = Object.entries(env ?? {});
  if (entries.length === 0) {
    return restored ? { command: `rm -f -- ${quoteShellArg(launchEnvPath(options))}` } : undefined;
  }
  const content = new TextEncoder().encode(
    entries.map(([name, value]) => `export ${name}=${quoteShellArg(value)}\n`).join(""),
  );
  if (content.byteLength > API_STDIN_BYTES) {
    throw invalidRequest(
      `the launch env must fit in ${API_STDIN_BYTES} bytes on Freestyle`,
      { field: "env" },
      PROVIDER,
    );
  }
  const state = quoteShellArg(fromHome(options, options.stateDirectory));
  const file = quoteShellArg(launchEnvPath(options));
  return { command: `mkdir -p -- ${workspace} ${state} && (umask 077 && cat > ${file})`, stdin: content };
}

async function runSetup(
  context: FreestyleContext,
  vmId: string,
  setup: SetupScript,
  call: OperationCall,
): Promise<void> {
  const result = await runScript(context, vmId, setup.command, call, setup.stdin).catch((error: unknown) => {
    throw mapFreestyleError(error, { operation: "launch", sandboxId: vmId });
  });
  if (result.exitCode === 0) return;
  throw new SandportError({
    code: "UNEXPECTED",
    provider: PROVIDER,
    retryable: false,
    message: `freestyle VM ${vmId} could not be set up (workspace, launch env): ${result.stderr.trim() || `exit ${result.exitCode}`}`,
    details: { sandboxId: vmId, exitCode: result.exitCode },
  });
}
