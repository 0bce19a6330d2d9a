import assert from "node:assert/strict";
import type { ExecResult, LaunchSpec, ResourceLimits, SandboxHandle } from "@sandport/core";
import { SandportError } from "@sandport/core";
import { expectCode } from "./assertions.js";
import { type CheckGroup, GROUP_LABEL, RUN_LABEL } from "./suite.js";

/** Memory limits tried in turn, smallest first: a runtime that sizes memory in GiB refuses 64 MiB. */
const MEMORY_LIMITS_MIB = [64, 1024] as const;

/** Disk bounds tried in turn, smallest first, as for memory. */
const DISK_LIMITS_MIB = [64, 1024] as const;

/**
 * Writes 1 MiB blocks, twice the bound, in the working directory (the
 * workspace, which the bound covers); the shell fails with `dd`'s failure,
 * and says how much was written.
 */
function diskFill(limitMiB: number): string {
  return `dd if=/dev/zero of=sandport-fill bs=1M count=${limitMiB * 2} 2>&1; status=$?; wc -c < sandport-fill; exit $status`;
}

/** The process limit of `limits.processes`: room for a shell and a few helpers, not for the bomb. */
const PROCESS_LIMIT = 20;

/** Holds ever more memory, four times the limit: `tail` keeps the whole of a line that never ends. */
function memoryBomb(limitMiB: number): string {
  return `head -c ${limitMiB * 4}m /dev/zero | tail`;
}

/** Forks children that hold their slot, far past the limit: the shell fails at the first refused fork. */
const FORK_BOMB = "for i in $(seq 200); do sleep 600 & done; wait";

/** The declared capability of each limit, and a request for it. */
const LIMITS = [
  ["memoryLimit", { memoryMiB: 64 }],
  ["cpuLimit", { cpus: 1 }],
  ["processLimit", { maxProcesses: PROCESS_LIMIT }],
  ["diskLimit", { diskMiB: 1024 }],
] as const satisfies readonly (readonly [string, ResourceLimits])[];

/**
 * Registers the resource-limit checks. Each launches its own sandbox with
 * the limit, and runs only where the runtime declares the limit enforced
 * (`memoryLimit`, `processLimit`, `diskLimit` true); elsewhere it is skipped
 * with the declared value. `limits.refused` checks the other side: a limit declared
 * `unsupported` or `not-exposed` is refused at launch.
 */
export function declareResourceLimitChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const caps = suite.capabilities;
  const unless = (name: "memoryLimit" | "processLimit" | "diskLimit") =>
    caps[name] === true ? undefined : `${name} is ${caps[name]}: the runtime does not declare it enforced`;
  const budget = Math.max(suite.timeouts.commandTimeoutMs, 60_000);

  /** The result of a command that must come back and leave the sandbox working. */
  const runsNext = async (handle: H, what: string) => {
    const next = await runtime.exec(handle, { shell: "sleep 0 & sleep 0 & wait; echo still here", timeoutMs: budget });
    assert.deepEqual(
      [next.exitCode, next.stdout, next.limit],
      [0, "still here\n", undefined],
      `the next command after ${what}`,
    );
  };

  group.check(
    "limits.memory",
    async () => {
      const { handle, memoryMiB } = await launchWithMemory(group);
      try {
        const bomb = await runtime.exec(handle, { shell: memoryBomb(memoryMiB), timeoutMs: budget });
        assert.equal(bomb.limit, "memory", `the result says memory: ${summary(bomb)}`);
        assert.notEqual(bomb.exitCode, 0, "a command killed at its limit did not succeed");
        assert.equal(bomb.timedOut, false, "killed at its limit, not its timeout");
        await runsNext(handle, "a memory bomb");
      } finally {
        await suite.destroy(handle);
      }
    },
    { unavailable: unless("memoryLimit") },
  );

  group.check(
    "limits.processes",
    async () => {
      const handle = await suite.launch(labelled({ resources: { maxProcesses: PROCESS_LIMIT } }));
      try {
        const bomb = await runtime.exec(handle, { shell: FORK_BOMB, timeoutMs: budget });
        assert.equal(bomb.limit, "processes", `the result says processes: ${summary(bomb)}`);
        assert.notEqual(bomb.exitCode, 0, "a command held at its process limit did not succeed");
        assert.equal(bomb.timedOut, false, "the shell failed at the refused fork; it did not run on");
        await runsNext(handle, "a fork bomb");
      } finally {
        await suite.destroy(handle);
      }
    },
    { unavailable: unless("processLimit") },
  );

  group.check(
    "limits.disk",
    async () => {
      const { handle, limitMiB } = await launchWithLimit(group, DISK_LIMITS_MIB, (diskMiB) => ({ diskMiB }));
      try {
        const fill = await runtime.exec(handle, { shell: diskFill(limitMiB), timeoutMs: budget });
        assert.match(fill.stdout, /No space left on device/, `the write past the bound failed: ${summary(fill)}`);
        assert.notEqual(fill.exitCode, 0, "a command refused at the bound did not succeed");
        assert.equal(fill.limit, "disk", `the result says disk: ${summary(fill)}`);
        const written = Number(fill.stdout.trim().split("\n").pop());
        assert.ok(written <= limitMiB * 1024 * 1024, `no more than the bound was written: ${written} bytes`);
        const freed = await runtime.exec(handle, { shell: "rm sandport-fill", timeoutMs: budget });
        assert.equal(freed.exitCode, 0, `the filling file is removed: ${summary(freed)}`);
        await runsNext(handle, "a full disk");
      } finally {
        await suite.destroy(handle);
      }
    },
    { unavailable: unless("diskLimit") },
  );

  const refused = LIMITS.filter(([name]) => caps[name] === "unsupported" || caps[name] === "not-exposed");
  group.check(
    "limits.refused",
    async () => {
      for (const [name, resources] of refused) {
        const labels = { [GROUP_LABEL]: `limits-refused-${name}` };
        await expectCode(
          () => suite.launch({ resources, labels }),
          "UNSUPPORTED",
          `a launch with ${JSON.stringify(resources)} (${name} is ${caps[name]})`,
        );
        if (caps.labelSearch === true) {
          const found = await runtime.findByLabels!({ [RUN_LABEL]: suite.runId, ...labels });
          assert.deepEqual(found, [], `nothing was launched for ${name}`);
        }
      }
    },
    { unavailable: refused.length === 0 ? "every limit is declared enforced or unknown" : undefined },
  );
}

/** Launches with the smallest memory limit of {@link MEMORY_LIMITS_MIB} the runtime accepts. */
async function launchWithMemory<H extends SandboxHandle>(
  group: CheckGroup<H>,
): Promise<{ handle: H; memoryMiB: number }> {
  const { handle, limitMiB } = await launchWithLimit(group, MEMORY_LIMITS_MIB, (memoryMiB) => ({ memoryMiB }));
  return { handle, memoryMiB: limitMiB };
}

/** Launches with the smallest of `sizes` (MiB) the runtime accepts for the limit `resources` makes of it. */
async function launchWithLimit<H extends SandboxHandle>(
  group: CheckGroup<H>,
  sizes: readonly number[],
  resources: (limitMiB: number) => ResourceLimits,
): Promise<{ handle: H; limitMiB: number }> {
  let refusal: unknown;
  for (const limitMiB of sizes) {
    try {
      return { handle: await group.suite.launch(labelled({ resources: resources(limitMiB) })), limitMiB };
    } catch (error) {
      if (!SandportError.hasCode(error, "UNSUPPORTED")) throw error;
      refusal = error;
    }
  }
  throw refusal;
}

function labelled(spec: LaunchSpec): LaunchSpec {
  return { ...spec, labels: { [GROUP_LABEL]: "limits" } };
}

function summary(result: ExecResult): string {
  const { exitCode, timedOut, truncated, limit } = result;
  return JSON.stringify({ exitCode, timedOut, truncated, limit, stderr: result.stderr.slice(0, 300) });
}
