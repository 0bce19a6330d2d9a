import { type LaunchSpec, type OpOptions, retry, type SandportError } from "@sandport/core";
import { type CallBudget, createCallBudget, launchFailure } from "@sandport/core/adapter";
import { refusedOnly } from "./command-plan.js";
import { type DaytonaContext, seconds } from "./context.js";
import { mapDaytonaError } from "./errors.js";
import { type DaytonaHandle, handleFromSandbox } from "./handle.js";
import type { DaytonaSandbox } from "./internal/sdk-types.js";
import { createBody, createParams, type LaunchPlan, planLaunch } from "./launch-plan.js";
import { deleteSandbox } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import { repeatable } from "./run-script.js";

/**
 * Creates a sandbox with the SDK's `create` (one request from a snapshot:
 * Daytona answers once it is started; an image build is waited for; a create
 * Daytona refused with 429 or 503 is sent again), carrying
 * the ownership label, the launch key and the caller's labels, with explicit
 * lifecycle intervals, env, network and volumes; then creates the workspace.
 *
 * The create is not cancelled when the caller's signal or deadline fires (the
 * call still rejects at once): whatever it produces is destroyed in the
 * background (`settle()` waits for it). A failure after the sandbox exists
 * destroys it too. A create whose outcome is unknown (lost response, 5xx) is
 * searched for by launch key in the background, with backoff, until the
 * listing can be trusted, and what it made is destroyed.
 */
export function launch(context: DaytonaContext, spec: LaunchSpec = {}, op?: OpOptions): Promise<DaytonaHandle> {
  return launchWith(context, spec, op, "launch", async (plan, call, track) => {
    const client = await context.client();
    if (call.signal.aborted) throw call.signal.reason;
    const params = createParams(context.options, plan);
    const creation = retry(
      () => client.create(params, { timeout: seconds(call.remainingMs()) }),
      refusedOnly(call.signal),
    );
    const sandbox = await track(
      creation.then((created) => created.id),
      creation,
    );
    await prepareWorkspace(context, sandbox, call);
    context.remember(sandbox.id, sandbox);
    context.known.markPristine(sandbox.id);
    return handleFromSandbox({ id: sandbox.id, labels: plan.callerLabels, createdAt: sandbox.createdAt });
  });
}

/**
 * Creates a sandbox like {@link launch}, but resolves as soon as Daytona has
 * accepted it (one `POST /api/sandbox` through the low-level API, which does
 * not wait): the sandbox may still be booting or building, and its workspace
 * does not exist yet. `DaytonaRuntime.ready(handle)` waits until it is
 * started and creates the workspace; call it before using the sandbox.
 */
export function launchDetached(context: DaytonaContext, spec: LaunchSpec = {}, op?: OpOptions): Promise<DaytonaHandle> {
  return launchWith(context, spec, op, "launchDetached", async (plan, call, track) => {
    const [sdk, api] = await Promise.all([context.sdk(), context.api()]);
    if (call.signal.aborted) throw call.signal.reason;
    const body = createBody(context.options, plan, sdk);
    const creation = retry(
      () => api.createSandbox(body, undefined, { timeout: Math.max(1, call.remainingMs()) }),
      refusedOnly(call.signal),
    );
    const { data } = await track(
      creation.then(({ data: created }) => created.id),
      creation,
    );
    context.known.markOwned(data.id);
    context.known.markPristine(data.id);
    return handleFromSandbox({ id: data.id, labels: plan.callerLabels, createdAt: data.createdAt });
  });
}

/** Waits until a sandbox is started (a detached launch, or one still booting) and creates its workspace. */
export function ready(context: DaytonaContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "ready", context.options.timeouts.launchMs, async (sandboxId, call) => {
    const sandbox = await context.instance(sandboxId, "ready", call);
    await prepareWorkspace(context, sandbox, call);
  });
}

/** Creates the workspace directory (`createFolder` makes parents and succeeds when it exists). */
async function prepareWorkspace(context: DaytonaContext, sandbox: DaytonaSandbox, timing: CallBudget): Promise<void> {
  const site = { operation: "launch", sandboxId: sandbox.id, path: context.options.workspaceRoot };
  await repeatable(timing, site, () => sandbox.fs.createFolder(context.options.workspaceRoot, "755"));
}

/** Hands a create to the launch frame: resolves what the create resolves, or its failure as a launch error. */
type Track = <T>(id: Promise<string>, creation: Promise<T>) => Promise<T>;

/**
 * The frame every launch runs in: the spec planned (refusals before any
 * request), the create tracked so that a launch that fails after sending it
 * reclaims what it produced in the background.
 */
function launchWith(
  context: DaytonaContext,
  spec: LaunchSpec,
  op: OpOptions | undefined,
  operation: string,
  create: (
    plan: LaunchPlan,
    call: CallBudget & { readonly signal: AbortSignal },
    track: Track,
  ) => Promise<DaytonaHandle>,
): Promise<DaytonaHandle> {
  let abandoned: ((error: SandportError) => void) | undefined;
  const launching = context.run(op, { operation }, context.options.timeouts.launchMs, (call) => {
    const plan = planLaunch(context.options, spec);
    const track: Track = async (id, creation) => {
      // Read by the cleanup if the launch fails; never a rejection nobody handles.
      id.catch(() => undefined);
      let created = false;
      const { timeouts, orphanCleanupMs } = context.options;
      abandoned = (error) =>
        context.reclaimLaunch(
          { creation: id, idOf: (sandboxId) => sandboxId, launchKey: plan.launchKey, error, created },
          {
            destroy: async (sandboxId) =>
              void (await deleteSandbox(context, sandboxId, createCallBudget(timeouts.destroyMs))),
            findByLaunchKey: (key) => findByLaunchKey(context, key, createCallBudget(timeouts.lookupMs)),
            cleanupMs: orphanCleanupMs,
          },
        );
      const value = await creation.catch((error: unknown) => {
        throw launchFailure(error, mapDaytonaError(error, { operation }), plan.launchKey, {
          outcomeUnknown: mapDaytonaError.outcomeUnknown(error),
        });
      });
      created = true;
      return value;
    };
    return create(plan, call, track);
  });
  return launching.catch((error: SandportError) => {
    abandoned?.(error);
    throw error;
  });
}
