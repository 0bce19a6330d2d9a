import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxRuntime } from "@sandport/core";

/**
 * Where an emulator runs its sandboxes for real: a runtime from the port, or a
 * factory for one (called once, when the emulator starts). Every emulated
 * sandbox is one handle launched on it.
 */
export type EmulatorBackend = SandboxRuntime | (() => SandboxRuntime | Promise<SandboxRuntime>);

/** A backend ready for use, and how to release what the emulator created for it. */
export interface ResolvedBackend {
  readonly runtime: SandboxRuntime;
  /** Removes what the emulator itself created (the default backend's temporary root). */
  dispose(): Promise<void>;
}

/**
 * The caller's backend, or by default a `LocalRuntime` from `@sandport/local`
 * rooted in a fresh temporary directory with `isolation: "none"` (emulated
 * sandboxes are test fixtures on this machine, not a security boundary).
 */
export async function resolveBackend(backend?: EmulatorBackend): Promise<ResolvedBackend> {
  if (backend !== undefined) {
    const runtime = typeof backend === "function" ? await backend() : backend;
    return { runtime, dispose: async () => {} };
  }
  const root = await mkdtemp(join(tmpdir(), "sandport-emulator-"));
  const removeRoot = () => rm(root, { recursive: true, force: true, maxRetries: 3 });
  try {
    const runtime = await createLocalRuntime(root);
    return { runtime, dispose: () => destroyEverySandbox(runtime).finally(removeRoot) };
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
 * destroyed does not stop the others. Tests that bring their own
 * `LocalRuntime` call it before removing its root.
 */
export async function destroyEverySandbox(runtime: SandboxRuntime): Promise<void> {
  const handles = (await runtime.findByLabels?.({}).catch(() => [])) ?? [];
  await Promise.all(handles.map((handle) => runtime.destroy(handle).catch(() => {})));
}

async function createLocalRuntime(root: string): Promise<SandboxRuntime> {
  // Loaded on first use, so importing the testkit never loads the local runtime.
  let module: typeof import("@sandport/local");
  try {
    module = await import("@sandport/local");
  } catch (error) {
    throw new Error(
      "the default emulator backend is LocalRuntime from @sandport/local, which could not be loaded (is it built?); pass options.backend to use another runtime",
      { cause: error },
    );
  }
  return new module.LocalRuntime({ root, isolation: "none" });
}
