import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SandportError } from "@sandport/core";
import { LocalRuntime, type LocalRuntimeOptions } from "@sandport/local";
import { destroyEverySandbox } from "../emulators/harness/backend.js";

/** A {@link LocalRuntime} over a fresh temporary root, for tests that drive a real runtime. */
export interface LocalTestRuntime {
  /** The runtime, isolated with namespaces where bubblewrap works here. */
  readonly runtime: LocalRuntime;
  /** The isolation it runs under: `"none"` only where bubblewrap cannot work and CI does not require it. */
  readonly isolation: "namespaces" | "none";
  /**
   * `undefined` under namespaces, else why a test that asserts what only a
   * namespaced sandbox shows skips: pass it as `{ skip: local.namespacesOnly }`.
   */
  readonly namespacesOnly: string | undefined;
  /**
   * Destroys every sandbox still on the runtime, then removes the temporary
   * root: a test that failed half-way leaves no process and no cgroup behind
   * (removing the root alone would leave both).
   */
  cleanup(): Promise<void>;
}

let probed: Promise<string | undefined> | undefined;

/**
 * `undefined` where local sandboxes run under bubblewrap namespaces here, else
 * the reason (naming bubblewrap) that a test skips when it asserts what only a
 * namespaced sandbox shows: the workspace at `/workspace`, absolute links
 * inside it, its own loopback. Use it as `{ skip: await namespacesSkipReason() }`.
 * With `SANDPORT_REQUIRE_BWRAP=1` (CI) bubblewrap not working throws instead,
 * so such tests never quietly skip there. Probed once per process.
 */
export function namespacesSkipReason(): Promise<string | undefined> {
  probed ??= probeNamespaces();
  return probed;
}

async function probeNamespaces(): Promise<string | undefined> {
  const root = mkdtempSync(join(tmpdir(), "sandport-testkit-probe-"));
  const runtime = new LocalRuntime({ root, isolation: "namespaces" });
  try {
    const handle = await runtime.launch({});
    try {
      await runtime.exec(handle, { argv: ["true"] });
    } finally {
      await runtime.destroy(handle);
    }
    return undefined;
  } catch (error) {
    if (!SandportError.hasCode(error, "UNSUPPORTED") || process.env.SANDPORT_REQUIRE_BWRAP === "1") throw error;
    // The first sentence says why; the rest is the runtime's advice on fixing it.
    const why = error.message.split(". ")[0];
    return `bubblewrap is unusable here, so sandboxes are plain host directories (isolation: none): ${why}`;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** What a test may choose of its {@link localTestRuntime}. */
export interface LocalTestRuntimeOptions {
  /**
   * `"none"` for a runtime of plain processes even where bubblewrap works: a
   * test of how code meets a runtime that isolates nothing (one that enforces
   * no network policy, say). Default: namespaces where bubblewrap works.
   */
  readonly isolation?: "none";
  /**
   * How the runtime's egress proxy resolves names (its `egressResolver`): a
   * test of network allow lists maps names such as `allowed.test` to the
   * loopback server it runs. Default: the system resolver.
   */
  readonly egressResolver?: LocalRuntimeOptions["egressResolver"];
  /**
   * `false` for a runtime without `stop`/`start` (`cgroups: "disabled"`)
   * even where this host could freeze sandboxes: a test of how code meets a
   * runtime that cannot stop one. Default: `stop`/`start` where the host
   * allows them (see the local runtime's "Stop and start").
   */
  readonly stoppable?: false;
}

/**
 * A real local runtime for tests of code that drives runtimes (framework
 * bridges): namespace isolation where bubblewrap works, else plain processes,
 * said in `isolation`; tests of what only namespaces show skip with
 * `namespacesOnly`. With `SANDPORT_REQUIRE_BWRAP=1` (CI), bubblewrap not
 * working throws instead, so such tests never quietly lose their isolation.
 */
export async function localTestRuntime(
  prefix: string,
  options: LocalTestRuntimeOptions = {},
): Promise<LocalTestRuntime> {
  const probed = await namespacesSkipReason();
  const root = mkdtempSync(join(tmpdir(), `sandport-${prefix}-`));
  const isolation = probed === undefined && options.isolation === undefined ? "namespaces" : "none";
  const namespacesOnly =
    isolation === "namespaces" ? undefined : (probed ?? "this test's runtime has isolation: none, chosen by the test");
  const runtime = new LocalRuntime({
    root,
    isolation,
    ...(options.egressResolver === undefined ? {} : { egressResolver: options.egressResolver }),
    ...(options.stoppable === false ? { cgroups: "disabled" as const } : {}),
  });
  const cleanup = async () => {
    try {
      await destroyEverySandbox(runtime);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };
  return { runtime, isolation, namespacesOnly, cleanup };
}

/** A {@link LocalTestRuntime} with one sandbox launched on it. */
export interface LocalTestSandbox extends LocalTestRuntime {
  /** The sandbox. */
  readonly handle: Awaited<ReturnType<LocalRuntime["launch"]>>;
  /** Destroys the sandbox (and any other left on the runtime), then removes the temporary root. */
  cleanup(): Promise<void>;
}

/** {@link localTestRuntime} and one sandbox on it, for tests that need just one. */
export async function localTestSandbox(prefix: string): Promise<LocalTestSandbox> {
  const local = await localTestRuntime(prefix);
  let handle: LocalTestSandbox["handle"];
  try {
    handle = await local.runtime.launch({});
  } catch (error) {
    await local.cleanup();
    throw error;
  }
  return {
    ...local,
    handle,
    cleanup: async () => {
      try {
        await local.runtime.destroy(handle);
      } finally {
        await local.cleanup();
      }
    },
  };
}
