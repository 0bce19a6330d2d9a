// The fixture of the emulator's own SDK tests: call useEmulator() inside a
// describe block for an emulator started before its tests and stopped after
// them, with every sandbox killed after each test.

import { after, afterEach, before } from "node:test";
import * as e2b from "e2b";
import { type E2BEmulator, type E2BEmulatorOptions, startE2BEmulator } from "./emulator.js";

/** What a describe block drives. */
export interface EmulatorFixture {
  /** The running emulator (from the block's `before` on). */
  readonly emulator: E2BEmulator;
  /** `Sandbox.create` through the real SDK against it, with a one-minute lifetime unless `options` says otherwise. */
  create(options?: e2b.SandboxOpts): Promise<e2b.Sandbox>;
}

/** Starts an emulator for the enclosing describe block. */
export function useEmulator(options?: E2BEmulatorOptions): EmulatorFixture {
  let running: E2BEmulator | undefined;
  const fixture: EmulatorFixture = {
    get emulator() {
      if (!running) throw new Error("the emulator starts in the describe block's before()");
      return running;
    },
    create: (more = {}) => e2b.Sandbox.create({ ...fixture.emulator.sdkOptions, timeoutMs: 60_000, ...more }),
  };
  before(async () => {
    running = await startE2BEmulator(options);
  });
  after(() => running?.stop());
  // A failed test must not leave sandboxes behind for the next one's assertions.
  afterEach(async () => {
    const { emulator } = fixture;
    for (const { id } of emulator.liveSandboxes()) await e2b.Sandbox.kill(id, emulator.sdkOptions).catch(() => false);
  });
  return fixture;
}
