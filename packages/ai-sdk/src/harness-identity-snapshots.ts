import { resolveCapabilities, type SandboxHandle, type SandboxRuntime, type SnapshotRef } from "@sandport/core";
import { IDENTITY_LABEL } from "./harness-options.js";
import { opOptions } from "./session-context.js";

/** The port's snapshot members of a runtime that has them all, bound to it. */
export interface IdentitySnapshots<H extends SandboxHandle> {
  /** The runtime's `snapshot`. */
  readonly snapshot: NonNullable<SandboxRuntime<H>["snapshot"]>;
  /** The runtime's `listSnapshots`. */
  readonly listSnapshots: NonNullable<SandboxRuntime<H>["listSnapshots"]>;
}

/**
 * The runtime's snapshots, where it has the port's `snapshots` capability
 * (`snapshot`, `listSnapshots`, `deleteSnapshot`, `launch({ from })`), else
 * `undefined`: the harness then runs `onFirstCreate` on every fresh launch.
 */
export function identitySnapshots<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
): IdentitySnapshots<H> | undefined {
  if (resolveCapabilities(runtime).snapshots !== true || !runtime.snapshot || !runtime.listSnapshots) return undefined;
  return { snapshot: runtime.snapshot.bind(runtime), listSnapshots: runtime.listSnapshots.bind(runtime) };
}

/**
 * The newest snapshot of ours labelled `ai-sdk.harness/identity=<identity>`
 * (two sessions bootstrapping the same identity at once may each leave one;
 * the newest wins), or `undefined` when the identity was never bootstrapped.
 */
export async function newestIdentitySnapshot<H extends SandboxHandle>(
  snapshots: IdentitySnapshots<H>,
  identity: string,
  abortSignal: AbortSignal | undefined,
): Promise<SnapshotRef | undefined> {
  const found = await snapshots.listSnapshots({ [IDENTITY_LABEL]: identity }, opOptions(abortSignal));
  return found.reduce<SnapshotRef | undefined>(
    (newest, snapshot) => (newest === undefined || snapshot.createdAt > newest.createdAt ? snapshot : newest),
    undefined,
  );
}
