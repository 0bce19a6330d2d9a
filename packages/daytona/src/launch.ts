import { type LaunchSpec, type OpOptions, retry } from "@sandport/core";
import { type LaunchRecipe, launchWithReclaim } from "@sandport/core/adapter";
import { daytonaCapabilities } from "./capabilities.js";
import { refusedOnly } from "./command-plan.js";
import { type DaytonaContext, seconds } from "./context.js";
import { type DaytonaHandle, handleFromSandbox } from "./handle.js";
import { createBody, createParams, type LaunchPlan, planLaunch } from "./launch-plan.js";
import { deleteSandbox } from "./lifecycle.js";
import { findByLaunchKey } from "./lookup.js";
import { refuseDroppedDomainList } from "./network-plan.js";
import { assertSnapshotExists } from "./snapshots.js";

/**
 * With `from`, the snapshot (one of ours, else `NOT_FOUND` before any request)
 * is looked up first (a deleted one is `NOT_FOUND`, nothing created) and sent as the snapshot.
 *
 * Creates a sandbox with the SDK's `create` (one request from a snapshot:
 * Daytona answers once it is started; an image build is waited for; a create
 * Daytona refused with 429 or 503 is sent again), carrying
 * the ownership label, the launch key and the caller's labels, with explicit
 * lifecycle intervals, env, network (an allow list as `networkAllowList` and
 * `domainAllowList`) and volumes. The create is the launch's only request: the
 * workspace is made by its first use, within that call's own request (a
 * command run in it, a file operation or the symlink check of a file call, a
 * file written there). A sandbox that
 * does not report the `domainAllowList` it was asked for (an SDK older than
 * 0.216 drops it) is deleted and the launch refused `UNSUPPORTED`.
 *
 * The create is not cancelled when the caller's signal or deadline fires (the
 * call still rejects at once): whatever it produces is destroyed in the
 * background (`settle()` waits for it). A failure after the sandbox exists
 * destroys it too. A create whose outcome is unknown (lost response, 5xx) is
 * searched for by launch key in the background, with backoff, until the
 * listing can be trusted, and what it made is destroyed.
 */
export function launch(context: DaytonaContext, spec?: LaunchSpec, op?: OpOptions): Promise<DaytonaHandle> {
  return launchWithReclaim(context, spec, op, {
    networkPolicy: daytonaCapabilities.modes.networkPolicy,
    ...planAndReclaim(context),
    load: async ({ plan }) => {
      if (plan.from !== undefined) await assertSnapshotExists(context, plan.from);
      return context.client();
    },
    create: (client, { plan }, call) => {
      const params = createParams(context.options, plan);
      return retry(() => client.create(params, { timeout: seconds(call.remainingMs()) }), refusedOnly(call.signal));
    },
    idOf: (sandbox) => sandbox.id,
    setup: async (sandbox, { labels, plan }) => {
      refuseDroppedDomainList(plan.network.domainAllowList, (sandbox as { domainAllowList?: unknown }).domainAllowList);
      context.remember(sandbox.id, sandbox);
      const { cpu, memory, disk } = sandbox;
      return handleFromSandbox({ id: sandbox.id, labels, createdAt: sandbox.createdAt, cpu, memory, disk });
    },
  });
}

/**
 * Creates a sandbox like {@link launch}, but resolves as soon as Daytona has
 * accepted it (one `POST /api/sandbox` through the low-level API, which does
 * not wait): the sandbox may still be booting or building.
 * `DaytonaRuntime.ready(handle)` waits until it is started; call it before
 * using the sandbox.
 */
export function launchDetached(context: DaytonaContext, spec?: LaunchSpec, op?: OpOptions): Promise<DaytonaHandle> {
  return launchWithReclaim(context, spec, op, {
    networkPolicy: daytonaCapabilities.modes.networkPolicy,
    ...planAndReclaim(context),
    operation: "launchDetached",
    load: async ({ plan }) => {
      if (plan.from !== undefined) await assertSnapshotExists(context, plan.from);
      return Promise.all([context.sdk(), context.api()]);
    },
    create: ([sdk, api], { plan }, call) => {
      const body = createBody(context.options, plan, sdk);
      return retry(
        () => api.createSandbox(body, undefined, { timeout: Math.max(1, call.remainingMs()) }),
        refusedOnly(call.signal),
      );
    },
    idOf: ({ data }) => data.id,
    setup: async ({ data }, { labels, plan }) => {
      refuseDroppedDomainList(plan.network.domainAllowList, data.domainAllowList);
      const { cpu, memory, disk } = data;
      return handleFromSandbox({ id: data.id, labels, createdAt: data.createdAt, cpu, memory, disk });
    },
  });
}

/**
 * Waits until a sandbox is started (a detached launch, or one still booting).
 * Its workspace is made by its first use, as after any launch.
 */
export function ready(context: DaytonaContext, handle: unknown, op?: OpOptions): Promise<void> {
  return context.onHandle(handle, op, "ready", context.options.timeouts.launchMs, async (sandboxId, call) => {
    await context.instance(sandboxId, "ready", call);
  });
}

/** What both launches share: the plan of a spec (Daytona's refusals), and the delete and search of their cleanup. */
function planAndReclaim(
  context: DaytonaContext,
): Pick<
  LaunchRecipe<LaunchPlan, unknown, unknown, DaytonaHandle>,
  "plan" | "destroy" | "findByLaunchKey" | "restoresSnapshots"
> {
  return {
    restoresSnapshots: true,
    plan: (valid, launchKey) => planLaunch(context.options, valid, launchKey),
    destroy: (sandboxId, budget) => deleteSandbox(context, sandboxId, budget),
    findByLaunchKey: (key, budget) => findByLaunchKey(context, key, budget),
  };
}
