import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SandportError } from "@sandport/core";
import { LocalRuntime } from "@sandport/local";

/** A {@link LocalRuntime} over a fresh temporary root, for tests that drive a real runtime. */
export interface LocalTestRuntime {
  /** The runtime, isolated with namespaces where bubblewrap works here. */
  readonly runtime: LocalRuntime;
  /** The isolation it runs under: `"none"` only where bubblewrap cannot work and CI does not require it. */
  readonly isolation: "namespaces" | "none";
  /** Removes the temporary root (destroy the sandboxes first). */
  cleanup(): void;
}

/**
 * A real local runtime for tests of code that drives runtimes (framework
 * bridges): namespace isolation where bubblewrap works, else plain processes,
 * said in `isolation`. With `SANDPORT_REQUIRE_BWRAP=1` (CI), bubblewrap not
 * working throws instead, so such tests never quietly lose their isolation.
 */
export async function localTestRuntime(prefix: string): Promise<LocalTestRuntime> {
  const root = mkdtempSync(join(tmpdir(), `sandport-${prefix}-`));
  const cleanup = () => rmSync(root, { recursive: true, force: true });
  const runtime = new LocalRuntime({ root, isolation: "namespaces" });
  try {
    const handle = await runtime.launch({});
    await runtime.exec(handle, { argv: ["true"] });
    await runtime.destroy(handle);
    return { runtime, isolation: "namespaces", cleanup };
  } catch (error) {
    if (!SandportError.hasCode(error, "UNSUPPORTED") || process.env.SANDPORT_REQUIRE_BWRAP === "1") {
      cleanup();
      throw error;
    }
    return { runtime: new LocalRuntime({ root, isolation: "none" }), isolation: "none", cleanup };
  }
}

/** A {@link LocalTestRuntime} with one sandbox launched on it. */
export interface LocalTestSandbox extends LocalTestRuntime {
  /** The sandbox. */
  readonly handle: Awaited<ReturnType<LocalRuntime["launch"]>>;
  /** Destroys the sandbox, then removes the temporary root. */
  cleanup(): Promise<void>;
}

/** {@link localTestRuntime} and one sandbox on it, for tests that need just one. */
export async function localTestSandbox(prefix: string): Promise<LocalTestSandbox> {
  const local = await localTestRuntime(prefix);
  const handle = await local.runtime.launch({});
  return {
    ...local,
    handle,
    cleanup: async () => {
      try {
        await local.runtime.destroy(handle);
      } finally {
        local.cleanup();
      }
    },
  };
}
