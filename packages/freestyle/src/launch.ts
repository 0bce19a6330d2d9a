import { randomUUID } from "node:crypto";
import {
  invalidRequest,
  type LaunchSpec,
  type OpOptions,
  quoteShellArg,
  RESERVED_ENV,
  refuseReservedEnv,
  SandportError,
  unsupported,
  validateLaunchSpec,
} from "@sandport/core";
import { createCallBudget, launchFailure, type OperationCall } from "@sandport/core/adapter";
import type { FreestyleContext } from "./context.js";
import { mapFreestyleError } from "./errors.js";
import { API_STDIN_BYTES, launchEnvPath } from "./exec.js";
import { type FreestyleHandle, PROVIDER } from "./handle.js";
import type { FreestyleCreated, FreestyleFirewallRule } from "./internal/sdk-types.js";
import { deleteVm } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import { fromHome, type ResolvedOptions } from "./options.js";
import { launchMetadata, slugFor } from "./ownership.js";
import { runScript } from "./run-script.js";

/** Longest launch key Freestyle's metadata can hold. */
const MAX_LAUNCH_KEY = 63;
/** The one rule that lets a VM reach the public Internet (`source: {}` is the VM being created). */
const PUBLIC_EGRESS: FreestyleFirewallRule = { action: "allow", source: {}, destination: { public: true } };

/**
 * Creates a VM carrying the ownership marks (metadata and a slug under the
 * name prefix; see `ownership.ts`), the launch key and the caller's labels,
 * with every lifetime field and the firewall sent explicitly; then creates the
 * workspace directory and writes the launch env file, in one command.
 *
 * The create request is not cancelled when the caller's signal or deadline
 * fires (the call still rejects at once): the API finishes a create anyway,
 * so it runs on, and whatever it produces is destroyed in the background
 * (`context.reclaimLaunch`; `settle()` waits for it). A failure after the VM
 * exists destroys it too. A create that fails with an unknown outcome (lost
 * response, 5xx) is searched for by launch key in the background, with
 * backoff, until the listing can be trusted, and what it made is destroyed.
 */
export function launch(context: FreestyleContext, spec: LaunchSpec = {}, op?: OpOptions): Promise<FreestyleHandle> {
  const { options } = context;
  let abandoned: ((error: SandportError) => void) | undefined;
  const launching = context.run(
    op,
    { operation: "launch" },
    options.timeouts.launchMs,
    async (call): Promise<FreestyleHandle> => {
      const valid = validateLaunchSpec(spec, PROVIDER);
      refuseReservedEnv(valid.env, RESERVED_ENV, "env", PROVIDER);
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
      const launchKey = valid.launchKey ?? randomUUID();
      if (launchKey.length > MAX_LAUNCH_KEY) {
        throw invalidRequest(`launchKey must be at most ${MAX_LAUNCH_KEY} characters on Freestyle`, {}, PROVIDER);
      }
      const metadata = launchMetadata(options.owner, valid.labels, launchKey);
      const setup = setupScript(options, valid.env);
      const lifetimeMs = valid.lifetimeMs ?? options.lifetimeMs;
      // Not bound to the caller: a create already sent is followed to its end (through the SDK's polling,
      // for a slow one) for as long as the cleanup may take, so what it makes can be destroyed by id.
      const client = await context.client(createCallBudget(options.orphanCleanupMs));
      // A caller that gave up while the SDK loaded sends nothing.
      if (call.signal.aborted) throw call.signal.reason;
      const creation = client.vms.create({
        snapshotId: valid.template ?? options.snapshot,
        slug: slugFor(options.namePrefix, options.owner, launchKey),
        metadata,
        ttlSeconds: Math.ceil(lifetimeMs / 1000),
        ...options.persistence,
        firewall: { rules: (valid.network ?? options.network) ? [PUBLIC_EGRESS] : [] },
      });
      let created = false;
      abandoned = (error) => reclaim(context, creation, launchKey, error, created);
      const { vmId } = await creation.catch((error: unknown) => {
        const slugTaken = (error as { code?: unknown }).code === "SLUG_TAKEN";
        const hint = slugTaken
          ? `a VM with launch key ${launchKey} exists already: a launch key is used once`
          : undefined;
        throw launchFailure(error, mapFreestyleError(error, { operation: "launch" }), launchKey, {
          outcomeUnknown: mapFreestyleError.outcomeUnknown(error),
          hint,
        });
      });
      created = true;
      context.known.markOwned(vmId);
      await runSetup(context, vmId, setup, call);
      context.known.markPristine(vmId);
      return { id: vmId, provider: PROVIDER, labels: Object.freeze({ ...valid.labels }) };
    },
  );
  return launching.catch((error: SandportError) => {
    abandoned?.(error);
    throw error;
  });
}

/** What a new VM needs before it can run commands: the workspace, and the launch env file. */
interface SetupScript {
  readonly command: string;
  /** The env file's content, passed as the command's stdin (never in the command line). */
  readonly stdin?: Uint8Array;
}

/**
 * The launch's one command: create the workspace directory and, when the
 * launch has an env, write it (mode 0600, outside the workspace) as
 * `export NAME='value'` lines that every command sources first.
 */
function setupScript(options: ResolvedOptions, env: Readonly<Record<string, string>> | undefined): SetupScript {
  const workspace = quoteShellArg(fromHome(options, options.workspaceRoot));
  const entries = Object.entries(env ?? {});
  if (entries.length === 0) return { command: `mkdir -p -- ${workspace}` };
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

/** After a failed launch whose create was sent: whatever it produced is destroyed in the background. */
function reclaim(
  context: FreestyleContext,
  creation: Promise<FreestyleCreated>,
  launchKey: string,
  error: SandportError,
  created: boolean,
): void {
  const { timeouts, orphanCleanupMs } = context.options;
  context.reclaimLaunch(
    { creation, idOf: (vm) => vm.vmId, launchKey, error, created },
    {
      destroy: async (vmId) => void (await deleteVm(context, vmId, createCallBudget(timeouts.destroyMs))),
      findByLaunchKey: (key) => findByLaunchKey(context, key, createCallBudget(timeouts.lookupMs)),
      cleanupMs: orphanCleanupMs,
    },
  );
}
