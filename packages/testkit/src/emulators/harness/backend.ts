import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { type SandboxHandle, type SandboxRuntime, SandportError } from "@sandport/core";

/**
 * Where an emulator runs its sandboxes for real: a runtime from the port, or a
 * factory for one (called once, when the emulator starts). Every emulated
 * sandbox is one handle launched on it.
 */
export type EmulatorBackend = SandboxRuntime | (() => SandboxRuntime | Promise<SandboxRuntime>);

/** A backend ready for use, and how to release what the emulator created for it. */
export interface ResolvedBackend {
  readonly runtime: SandboxRuntime;
  /**
   * True for the default backend running `isolation: "none"`: its commands
   * are host processes, so an absolute path in one (the provider's
   * workspace, `/workspace`) is the host's, the same for every sandbox.
   * False for a namespaced default backend and for the caller's own.
   */
  readonly hostPaths: boolean;
  /** Removes what the emulator itself created (the default backend's temporary root). */
  dispose(): Promise<void>;
}

/** How the default backend should look from inside: what the provider documents for its machines. */
export interface DefaultBackendShape {
  /**
   * The provider's home and working directory (`/home/user` on E2B), where
   * the workspace appears to commands when bubblewrap works here. Absolute,
   * normalized, not a system directory (see `LocalRuntimeOptions.workspaceRoot`).
   */
  readonly workspaceRoot: string;
  /**
   * The emulated provider's commands share one process table, and its
   * adapter relies on it (it stops a command by sweeping for the command's
   * marker from a second command). Then the default backend is namespaced
   * only with `namespaceScope: "sandbox"` (as root), and `isolation: "none"`
   * (one process table: the host's) where that is unavailable, never with a
   * PID namespace per command.
   */
  readonly sharedProcesses?: boolean;
  /**
   * Replaces DNS for the default backend's egress proxy (`LocalRuntime`'s
   * `egressResolver`), which enforces the allow lists an emulator translates
   * a provider's egress rules into: the conformance suite's
   * `conformanceEgressResolver`, so that its names resolve offline.
   */
  readonly egressResolver?: (host: string) => Promise<readonly string[]>;
}

/**
 * The caller's backend, or by default a `LocalRuntime` from `@sandport/local`
 * rooted in a fresh temporary directory. Where bubblewrap works (see
 * {@link defaultBackendIsolation}) it runs `isolation: "namespaces"` with the
 * workspace at `shape.workspaceRoot`, so commands find the provider's real
 * paths, and a sandbox launched without network gets its own loopback; as
 * root, with `namespaceScope: "sandbox"`, so that the commands of one
 * sandbox see each other's processes and share that loopback, as on the
 * provider's machine (elsewhere each command has its own, unless
 * `shape.sharedProcesses` asks for one process table: then `isolation: "none"`);
 * elsewhere it runs `isolation: "none"`, commands are host processes in the
 * workspace directory, and `shape` only roots request paths. Without
 * `shape` (an emulator whose machine cannot be drawn that way) it is always
 * `isolation: "none"` with the workspace root `/workspace`. Emulated
 * sandboxes are test fixtures on this machine, not a security boundary.
 */
export async function resolveBackend(backend?: EmulatorBackend, shape?: DefaultBackendShape): Promise<ResolvedBackend> {
  if (backend !== undefined) {
    const runtime = typeof backend === "function" ? await backend() : backend;
    return { runtime, hostPaths: false, dispose: async () => {} };
  }
  const root = await mkdtemp(join(tmpdir(), "sandport-emulator-"));
  const removeRoot = () => rm(root, { recursive: true, force: true, maxRetries: 3 });
  try {
    const { runtime, hostPaths } = await createLocalRuntime(root, shape);
    return { runtime, hostPaths, dispose: () => destroyEverySandbox(runtime).finally(removeRoot) };
  } catch (error) {
    await removeRoot();
    throw error;
  }
}

/**
 * Destroys every sandbox a backend still has (as far as its `findByLabels`
 * sees), so that removing its root leaves nothing behind: no process an
 * emulated command started, no cgroup the runtime made for a sandbox
 * (deleting the directory alone would leave both). A sandbox that cannot be
 * destroyed does not stop the others. A destroy that fails unverified
 * (`DESTROY_UNVERIFIED`) is tried again, for up to 30 s (destroy is safe to repeat: a loaded machine can take
 * longer than one destroy waits for killed processes to go); one that still
 * fails rejects the call, naming each sandbox and why, after the others were
 * destroyed.
 * Tests that bring their own `LocalRuntime` call it before removing its root.
 */
export async function destroyEverySandbox(runtime: SandboxRuntime): Promise<void> {
  const handles = (await runtime.findByLabels?.({})) ?? [];
  const failures = await Promise.all(handles.map((handle) => destroyPatiently(runtime, handle)));
  const left = failures.filter((failure): failure is Error => failure !== undefined);
  if (left.length > 0) {
    throw new AggregateError(
      left,
      `the backend could not destroy ${left.length} sandbox(es): ${left.map((error) => error.message).join("; ")}`,
    );
  }
}

/**
 * How long {@link destroyEverySandbox} keeps calling destroy on one sandbox
 * that will not go: a machine under heavy load can take longer than one
 * destroy waits for SIGKILLed processes to leave (each try waits seconds).
 */
const DESTROY_PATIENCE_MS = 30_000;
/** The pause between two tries of {@link destroyBackendSandbox}. */
const RETRY_PAUSE_MS = 100;

/**
 * Destroys one backend sandbox as a provider's control plane does: a destroy
 * that fails unverified (`DESTROY_UNVERIFIED`, which says to call it again) is
 * repeated until `timeoutMs` has passed. A loaded machine can take longer than
 * one local destroy waits for killed processes to leave; the provider's
 * delete would not fail for that. Any other error, or the last unverified
 * one, rejects.
 */
export async function destroyBackendSandbox(
  runtime: SandboxRuntime,
  handle: SandboxHandle,
  timeoutMs: number = DESTROY_PATIENCE_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await runtime.destroy(handle, { timeoutMs: Math.max(1, deadline - Date.now()) });
    } catch (error) {
      if (!SandportError.hasCode(error, "DESTROY_UNVERIFIED") || Date.now() >= deadline) throw error;
    }
    // One that fails fast (a file it cannot remove yet) is not repeated in a tight loop.
    await delay(Math.min(RETRY_PAUSE_MS, Math.max(0, deadline - Date.now())));
  }
}

async function destroyPatiently(runtime: SandboxRuntime, handle: SandboxHandle): Promise<Error | undefined> {
  try {
    await destroyBackendSandbox(runtime, handle);
    return undefined;
  } catch (error) {
    return new Error(`sandbox ${handle.id}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

/**
 * Whether the default backend isolates its sandboxes here, and if not, why.
 * Isolated, `namespaceScope` says whether each sandbox has one set of
 * namespaces that all its commands join (`"sandbox"`: they see each other's
 * processes and share one loopback, as on a provider's machine; needs root)
 * or each command its own (`"command"`).
 */
export type BackendIsolation =
  | { readonly isolated: true; readonly namespaceScope: "sandbox" | "command" }
  | { readonly isolated: false; readonly reason: string };

let isolation: Promise<BackendIsolation> | undefined;

/**
 * Whether the default backend runs its sandboxes under bubblewrap on this
 * machine, and with which `namespaceScope`: found out once per process by
 * launching (and destroying) one sandbox with `isolation: "namespaces"` in a
 * scratch root, first with `namespaceScope: "sandbox"` when this process is
 * root, else (or if that fails) with `"command"`. Tests of what only an
 * isolated sandbox shows skip with `reason` when it is not.
 */
export function defaultBackendIsolation(): Promise<BackendIsolation> {
  isolation ??= probeIsolation();
  return isolation;
}

async function probeIsolation(): Promise<BackendIsolation> {
  if (process.getuid?.() === 0 && (await probeScope("sandbox")) === undefined) {
    return { isolated: true, namespaceScope: "sandbox" };
  }
  const failure = await probeScope("command");
  if (failure === undefined) return { isolated: true, namespaceScope: "command" };
  return { isolated: false, reason: failure };
}

/** `undefined` when a namespaced sandbox with this scope runs a command here, else why not. */
async function probeScope(namespaceScope: "sandbox" | "command"): Promise<string | undefined> {
  const { LocalRuntime } = await loadLocal();
  const root = await mkdtemp(join(tmpdir(), "sandport-emulator-probe-"));
  try {
    const runtime = new LocalRuntime({ root, isolation: "namespaces", cgroups: "disabled", namespaceScope });
    const handle = await runtime.launch();
    const result = await runtime.exec(handle, { argv: ["true"] }).finally(() => runtime.destroy(handle));
    if (result.exitCode !== 0) return `a command under bubblewrap failed: ${result.stderr}`;
    return undefined;
  } catch (error) {
    return `bubblewrap is unusable here: ${(error as Error).message}`;
  } finally {
    await rm(root, { recursive: true, force: true, maxRetries: 3 });
  }
}

/**
 * An emulated sandbox has the limits its create asked for, as the provider
 * gives them, and no others: the local runtime's defaults would bound every
 * emulated sandbox's workspace with a loop-mounted image of its own, which
 * no provider contract here asks for and which slows every launch and destroy.
 */
const NO_DEFAULT_LIMITS = false;

async function createLocalRuntime(
  root: string,
  shape: DefaultBackendShape | undefined,
): Promise<{ runtime: SandboxRuntime; hostPaths: boolean }> {
  const { LocalRuntime } = await loadLocal();
  if (shape === undefined) {
    return {
      runtime: new LocalRuntime({ root, isolation: "none", defaultResources: NO_DEFAULT_LIMITS }),
      hostPaths: true,
    };
  }
  const { workspaceRoot } = shape;
  const egress = shape.egressResolver === undefined ? {} : { egressResolver: shape.egressResolver };
  const isolation = await defaultBackendIsolation();
  if (isolation.isolated && (isolation.namespaceScope === "sandbox" || !shape.sharedProcesses)) {
    // hostNetwork: an emulated sandbox with network is the provider's machine with open egress, whose every
    // listening port the provider's port URLs reach (the emulators serve them at 127.0.0.1:<port>, undeclared
    // ones too) and which the emulators' tests reach on this machine's loopback. Allow lists and "none" are
    // unchanged: they still go through the egress proxy or have no way out.
    const runtime = new LocalRuntime({
      root,
      isolation: "namespaces",
      workspaceRoot,
      namespaceScope: isolation.namespaceScope,
      hostNetwork: true,
      defaultResources: NO_DEFAULT_LIMITS,
      ...egress,
    });
    return { runtime, hostPaths: false };
  }
  return {
    runtime: new LocalRuntime({
      root,
      isolation: "none",
      workspaceRoot,
      defaultResources: NO_DEFAULT_LIMITS,
      ...egress,
    }),
    hostPaths: true,
  };
}

async function loadLocal(): Promise<typeof import("@sandport/local")> {
  // Loaded on first use, so importing the testkit never loads the local runtime.
  try {
    return await import("@sandport/local");
  } catch (error) {
    throw new Error(
      "the default emulator backend is LocalRuntime from @sandport/local, which could not be loaded (is it built?); pass options.backend to use another runtime",
      { cause: error },
    );
  }
}
