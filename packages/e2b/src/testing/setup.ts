// Builds an E2BRuntime over the fake SDK with its workspace and command state
// in a fresh temp directory. Not exported from the package.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { E2BRuntime } from "../e2b-runtime.js";
import type { E2BRuntimeOptions } from "../options.js";
import { FakeE2B } from "./fake-e2b.js";

/** A runtime over a fake SDK, plus what tests inspect. */
export interface FakeSetup {
  readonly fake: FakeE2B;
  readonly runtime: E2BRuntime;
  readonly root: string;
  readonly workspaceRoot: string;
  readonly stateDirectory: string;
  /** Kills leftover processes and removes the temp directory. */
  close(): Promise<void>;
}

/** Creates a fake-backed runtime; `options` override the test defaults. */
export async function fakeSetup(options: Partial<E2BRuntimeOptions> = {}): Promise<FakeSetup> {
  const root = await mkdtemp(join(tmpdir(), "sandport-e2b-"));
  const fake = new FakeE2B();
  const workspaceRoot = join(root, "workspace");
  const stateDirectory = join(root, "state");
  const runtime = new E2BRuntime({
    apiKey: "e2b_test_key",
    apiUrl: "http://127.0.0.1:9",
    sandboxUrl: "http://127.0.0.1:9",
    owner: "unit-tests",
    workspaceRoot,
    commandStateDirectory: stateDirectory,
    sdk: fake.module,
    ...options,
  });
  return {
    fake,
    runtime,
    root,
    workspaceRoot,
    stateDirectory,
    close: async () => {
      await fake.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
