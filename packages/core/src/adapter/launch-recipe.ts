import { randomUUID } from "node:crypto";
import type { Absence } from "../capabilities/absence.js";
import type { NetworkPolicyMode } from "../capabilities/modes.js";
import { unsupported } from "../errors/factories.js";
import type { SandportError } from "../errors/sandport-error.js";
import { RESERVED_ENV } from "../port/exec-markers.js";
import type { Labels } from "../port/labels.js";
import type { LaunchSpec } from "../port/launch-spec.js";
import type { OpOptions } from "../port/op-options.js";
import type { OperationTimeouts } from "../timing/operation-timeouts.js";
import { refuseReservedEnv } from "../validation/env.js";
import { type ValidatedLaunchSpec, validateLaunchSpec } from "../validation/requests.js";
import { type AdapterContext, type CallBudget, type ContextOptions, createCallBudget } from "./adapter-context.js";
import { refuseUnenforceableNetwork } from "./network-support.js";
import { launchFailure } from "./reclaim-launch.js";
import type { OperationCall } from "./run-operation.js";

/** The options {@link launchWithReclaim} reads: the launch, destroy and lookup deadlines, and the cleanup budget. */
export interface LaunchOptions extends ContextOptions {
  /** Per-call deadlines: `launchMs` bounds the launch, `destroyMs` and `lookupMs` each call of its cleanup. */
  readonly timeouts: Pick<OperationTimeouts, "launchMs" | "destroyMs" | "lookupMs">;
  /** How long the background cleanup of one failed launch may take in all, in ms. */
  readonly orphanCleanupMs: number;
}

/** What {@link launchWithReclaim} uses of an adapter's context. */
export type LaunchContext = Pick<
  AdapterContext<LaunchOptions, unknown, unknown>,
  "provider" | "options" | "mapError" | "known" | "run" | "reclaimLaunch"
>;

/** One launch as its steps see it: the validated spec, its launch key, and the adapter's plan of it. */
export interface PlannedLaunch<Plan> {
  /** The spec, validated (`validateLaunchSpec`) with no reserved env name. */
  readonly spec: ValidatedLaunchSpec;
  /** The caller's launch key, or a fresh one: stored with the sandbox, by which an unanswered create is found. */
  readonly launchKey: string;
  /** The caller's labels, frozen, as the handle reports them. */
  readonly labels: Labels;
  /** What {@link LaunchRecipe.plan} made of the spec. */
  readonly plan: Plan;
}

/**
 * An adapter's vendor primitives for {@link launchWithReclaim}: its refusals
 * and plan, what the create waits for, the create, the id it produced, the
 * setup after it, and the delete and launch-key search of the cleanup.
 *
 * @typeParam Plan what the adapter makes of a spec before any request
 * @typeParam Vendor what the create needs that must be loaded first (the SDK, a client)
 * @typeParam Created what the create resolves
 * @typeParam Handle the adapter's handle
 */
export interface LaunchRecipe<Plan, Vendor, Created, Handle> {
  /** The port method, in the call's errors: `"launch"` unless told (Daytona's `launchDetached`). */
  readonly operation?: string;
  /**
   * The network policies the adapter enforces: its declared
   * `capabilities.modes.networkPolicy`. A spec's policy beyond it is refused
   * with `UNSUPPORTED` before the plan runs (`refuseUnenforceableNetwork`).
   */
  readonly networkPolicy: NetworkPolicyMode | Absence;
  /**
   * Whether the plan starts a sandbox from `LaunchSpec.from` (the adapter
   * has `snapshot`). Without it, a spec with `from` is refused with
   * `UNSUPPORTED` before the plan runs: never launched fresh instead.
   */
  readonly restoresSnapshots?: boolean;
  /**
   * The vendor's refusals of a validated spec (`UNSUPPORTED`, `INVALID_REQUEST`:
   * resources or ports it cannot take, a lifetime out of its range) and
   * everything the create will send. Runs before any request; throws to refuse.
   */
  readonly plan: (spec: ValidatedLaunchSpec, launchKey: string) => Plan;
  /** Waits for what the create needs (the SDK, a client): cancelled with the call, before anything is sent. */
  readonly load: (launch: PlannedLaunch<Plan>, call: OperationCall) => Promise<Vendor>;
  /**
   * Sends the create and returns its promise, WITHOUT the caller's signal: a
   * create already sent is left to finish (or to reach the call's deadline,
   * `call.remainingMs()`), and what it makes is destroyed in the background.
   */
  readonly create: (vendor: Vendor, launch: PlannedLaunch<Plan>, call: OperationCall) => Promise<Created>;
  /** The sandbox id of what the create produced. */
  readonly idOf: (created: Created, launch: PlannedLaunch<Plan>) => string;
  /**
   * What follows the create (the workspace, a connected instance remembered)
   * and the handle. A failure here destroys the sandbox in the background.
   */
  readonly setup: (created: Created, launch: PlannedLaunch<Plan>, call: OperationCall) => Promise<Handle>;
  /** Deletes one of our sandboxes by id, within `budget` (the cleanup's; `timeouts.destroyMs` each). */
  readonly destroy: (sandboxId: string, budget: CallBudget) => Promise<unknown>;
  /** Ids of our sandboxes carrying the launch key, within `budget` (`timeouts.lookupMs` each): `findIdsByLaunchKey`. */
  readonly findByLaunchKey: (launchKey: string, budget: CallBudget) => Promise<readonly string[]>;
  /** Said after a failed create's message when its outcome is known (why the provider refused). */
  readonly hint?: (error: unknown, launchKey: string) => string | undefined;
  /**
   * The error of a failed create, when the adapter words it its own way;
   * by default `launchFailure` over the context's mapper and its `outcomeUnknown`.
   */
  readonly createFailure?: (error: unknown, launchKey: string) => SandportError;
}

/**
 * The frame of every remote adapter's `launch`, around the vendor primitives
 * of a {@link LaunchRecipe}: `context.run` within `timeouts.launchMs`; the
 * spec validated and a reserved env name refused; a network policy beyond
 * `recipe.networkPolicy` refused (`UNSUPPORTED`), and so is `from` without
 * `recipe.restoresSnapshots`; the launch key (the
 * caller's, else a fresh UUID); the adapter's plan (its refusals, before any
 * request); the SDK waited for, after which a caller that gave up sends
 * nothing; the create sent without the caller's signal; a failed create's
 * error naming the launch key and whether the sandbox may exist anyway
 * (`launchFailure`); the sandbox marked ours, then set up, then pristine.
 *
 * A launch that fails once the create was sent hands it to
 * `context.reclaimLaunch`: what the create produced is destroyed in the
 * background (`settle()` waits for it), and a create with an unknown outcome
 * is searched for by launch key until the listing can be trusted.
 */
export function launchWithReclaim<Plan, Vendor, Created, Handle>(
  context: LaunchContext,
  spec: LaunchSpec | undefined,
  op: OpOptions | undefined,
  recipe: LaunchRecipe<Plan, Vendor, Created, Handle>,
): Promise<Handle> {
  const { provider, options, mapError } = context;
  const operation = recipe.operation ?? "launch";
  const failure =
    recipe.createFailure ??
    ((error: unknown, launchKey: string) =>
      launchFailure(error, mapError(error, { operation }), launchKey, {
        outcomeUnknown: mapError.outcomeUnknown(error),
        hint: recipe.hint?.(error, launchKey),
      }));
  let abandoned: ((error: SandportError) => void) | undefined;
  const launching = context.run(op, { operation }, options.timeouts.launchMs, async (call) => {
    const valid = validateLaunchSpec(spec, provider);
    refuseReservedEnv(valid.env, RESERVED_ENV, "env", provider);
    refuseUnenforceableNetwork(valid.network, recipe.networkPolicy, provider);
    if (valid.from !== undefined && recipe.restoresSnapshots !== true) {
      throw unsupported(provider, "launching from a snapshot (LaunchSpec.from)", "this runtime takes no snapshots");
    }
    const launchKey = valid.launchKey ?? randomUUID();
    const labels = Object.freeze({ ...valid.labels });
    const launch: PlannedLaunch<Plan> = { spec: valid, launchKey, labels, plan: recipe.plan(valid, launchKey) };
    const vendor = await recipe.load(launch, call);
    // A caller that gave up while the SDK loaded sends nothing.
    if (call.signal.aborted) throw call.signal.reason;
    const creation = recipe.create(vendor, launch, call);
    let created = false;
    abandoned = (error) =>
      context.reclaimLaunch(
        { creation, idOf: (made) => recipe.idOf(made, launch), launchKey, error, created },
        {
          destroy: async (sandboxId) =>
            void (await recipe.destroy(sandboxId, createCallBudget(options.timeouts.destroyMs))),
          findByLaunchKey: (key) => recipe.findByLaunchKey(key, createCallBudget(options.timeouts.lookupMs)),
          cleanupMs: options.orphanCleanupMs,
        },
      );
    const made = await creation.catch((error: unknown) => {
      throw failure(error, launchKey);
    });
    created = true;
    const sandboxId = recipe.idOf(made, launch);
    context.known.markOwned(sandboxId);
    const handle = await recipe.setup(made, launch, call);
    context.known.markPristine(sandboxId);
    return handle;
  });
  return launching.catch((error: SandportError) => {
    abandoned?.(error);
    throw error;
  });
}
