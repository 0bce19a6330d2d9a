import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SandportError } from "@sandport/core";
import { LocalRuntime, type LocalRuntimeOptions } from "@sandport/local";

/** A {@link localTestRuntime}: the runtime, the isolation it got, and how to remove its root. */
export interface LocalTestRuntime {
  readonly runtime: LocalRuntime;
  /** `"namespaces"` where bubblewrap works here, else `"none"`. */
  readonly isolation: "namespaces" | "none";
  /** Why namespace isolation was not used; `undefined` when it was. */
  readonly fallbackReason?: string;
  /** Removes the runtime's temporary root (destroy the sandboxes first). */
  cleanup(): void;
}

/**
 * A real `LocalRuntime` over a fresh temporary root, for tests that drive a
 * runtime through something else (framework bridges): namespace isolation
 * where bubblewrap works here, else `isolation: "none"` with the reason. Under
 * `SANDPORT_REQUIRE_BWRAP=1` (CI) unusable bubblewrap throws instead, so such
 * tests never fall back silently there.
 */
export async function localTestRuntime(
  prefix: string,
  options: Omit<LocalRuntimeOptions, "root" | "isolation"> = {},
): Promise<LocalTestRuntime> {
  const root = mkdtempSync(join(tmpdir(), `sandport-${prefix}-`));
  const cleanup = () => rmSync(root, { recursive: true, force: true });
  const namespaces = new LocalRuntime({ ...options, root, isolation: "namespaces" });
  try {
    const handle = await namespaces.launch({});
    await namespaces.exec(handle, { argv: ["true"] });
    await namespaces.destroy(handle);
    return { runtime: namespaces, isolation: "namespaces", cleanup };
  } catch (error) {
    if (!SandportError.hasCode(error, "UNSUPPORTED")) {
      cleanup();
      throw error;
    }
    if (process.env.SANDPORT_REQUIRE_BWRAP === "1") {
      cleanup();
      throw new Error(`namespace isolation is required: ${error.message}`, { cause: error });
    }
    const runtime = new LocalRuntime({ ...options, root, isolation: "none" });
    return { runtime, isolation: "none", fallbackReason: error.message, cleanup };
  }
}
