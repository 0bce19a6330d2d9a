import type { SandboxHandle, SandboxRuntime } from "@sandport/core";
import { delay, fileExists } from "./assertions.js";

/** How long a surviving probe has to leave its trace once the gate opens, in milliseconds. */
const TRACE_WAIT_MS = 750;

/**
 * A witness that a killed command (or a child it left behind) really died:
 * the probe's shell waits for a gate file, and only the test opens the gate,
 * `settleMs` after the call that killed it settled. A probe that survived
 * then writes its trace; a dead one never can. A call may settle (`ABORTED`,
 * `DEADLINE_EXCEEDED`) before its kill has finished, so the kill gets
 * `settleMs` to land; unlike a fixed `sleep` before the trace, the probe does
 * not race the kill however slow the machine is.
 */
export class LateProbe {
  readonly #gate: string;
  readonly #trace: string;
  readonly #settleMs: number;

  /**
   * @param name makes the gate and trace file names unique within a sandbox's workspace
   * @param settleMs how long after the call settled the command may still be dying
   */
  constructor(name: string, settleMs: number) {
    this.#gate = `${name}-gate`;
    this.#trace = `${name}-late`;
    this.#settleMs = settleMs;
  }

  /** Shell that waits for the gate, then writes the trace. Runs in the workspace directory. */
  get shell(): string {
    return `while [ ! -e ${this.#gate} ]; do sleep 0.05; done; echo late > ${this.#trace}`;
  }

  /** Waits `settleMs`, opens the gate, gives a survivor time to write, and tells whether one did. */
  async survived<H extends SandboxHandle>(runtime: SandboxRuntime<H>, handle: H): Promise<boolean> {
    await delay(this.#settleMs);
    await runtime.writeFiles(handle, [{ path: this.#gate, content: "" }]);
    await delay(TRACE_WAIT_MS);
    return fileExists(runtime, handle, this.#trace);
  }
}
