import assert from "node:assert/strict";
import { type ExecEvent, type SandboxHandle, SandportError, type SandportErrorCode } from "@sandport/core";
import type { FaultSpec } from "../emulators/harness/types.js";
import type { WireFaultContext } from "./fault-context.js";
import { expectTypedFailure } from "./observe.js";

/** What a file holds, `""` when it does not exist; any other failure fails the case. */
async function contentOf<H extends SandboxHandle>(context: WireFaultContext<H>, handle: H, path: string) {
  const read = await context.call(context.runtime.readFile(handle, path), `reading ${path}`);
  if (read.ok) return new TextDecoder().decode(read.value);
  if (SandportError.isInstance(read.error) && read.error.code === "NOT_FOUND") return "";
  throw read.error;
}

/**
 * Starts `echo ran >> <file>` with `fault` on the start, then checks the invariant every adapter
 * keeps: the call succeeds (it ran once) or fails typed (it ran at most once), never twice.
 */
async function startOnce<H extends SandboxHandle>(
  context: WireFaultContext<H>,
  handle: H,
  fault: FaultSpec,
  file: string,
): Promise<boolean> {
  context.emulator.injectFault({ route: context.options.routes.exec, fault });
  const outcome = await context.call(context.runtime.exec(handle, { shell: `echo ran >> ${file}` }), "exec");
  context.emulator.clearFaults();
  if (outcome.ok) {
    assert.equal(outcome.value.exitCode, 0);
    assert.equal(await contentOf(context, handle, file), "ran\n", "a command that succeeded ran exactly once");
    return true;
  }
  const codes = fault.kind === "status" ? [fault.status === 429 ? "RATE_LIMITED" : "PROVIDER_UNAVAILABLE"] : undefined;
  const error = expectTypedFailure(outcome, `exec under ${fault.kind}`, codes as SandportErrorCode[] | undefined);
  const ran = await contentOf(context, handle, file);
  if (error.details.outcomeUnknown === true) assert.ok(["", "ran\n"].includes(ran), "it ran at most once");
  else assert.equal(ran, "", "a command whose start was refused did not run");
  return false;
}

/** The cases that fault command starts and their output (streamed output too, where `routes.stream` is named). */
export function declareExecCases<H extends SandboxHandle>(context: WireFaultContext<H>): void {
  const { routes } = context.options;

  context.case(
    "exec-refused",
    "a command start refused with 503 or 429 runs once if it succeeds, and not at all if it fails (typed)",
    async () => {
      const handle = await context.launch("exec-refused");
      try {
        for (const status of [503, 429] as const) {
          const fault: FaultSpec = { kind: "status", status, ...(status === 429 ? { retryAfterSeconds: 0 } : {}) };
          const succeeded = await startOnce(context, handle, fault, `runs-${status}.txt`);
          if (context.options.outcomes?.execRetriedOn?.includes(status)) {
            assert.equal(succeeded, true, `a start refused with ${status} is repeated (nothing ran)`);
          }
        }
      } finally {
        await context.destroy(handle);
      }
    },
  );

  context.case(
    "exec-dropped",
    "a command start whose connection dropped before it was processed is typed, or repeated and run once",
    async () => {
      const handle = await context.launch("exec-dropped");
      try {
        await startOnce(context, handle, { kind: "drop" }, "runs.txt");
      } finally {
        await context.destroy(handle);
      }
    },
  );

  context.case(
    "exec-cut",
    "a command whose answer is lost or whose output is cut mid-way never succeeds with partial output",
    async () => {
      const handle = await context.launch("exec-cut");
      try {
        const faults: FaultSpec[] = [{ kind: "lost-response" }, { kind: "drop-mid-stream", afterEvents: 1 }];
        for (const fault of faults) {
          context.emulator.injectFault({ route: routes.output ?? routes.exec, fault });
          const outcome = await context.call(
            context.runtime.exec(handle, { shell: "echo first; sleep 0.2; echo second" }),
            `exec under ${fault.kind}`,
          );
          context.emulator.clearFaults();
          if (outcome.ok) {
            assert.deepEqual(
              [outcome.value.stdout, outcome.value.exitCode],
              ["first\nsecond\n", 0],
              `a command that succeeded under ${fault.kind} returned its whole output`,
            );
          } else {
            expectTypedFailure(outcome, `exec under ${fault.kind}`);
          }
        }
      } finally {
        await context.destroy(handle);
      }
    },
  );

  const streamRoute = routes.stream;
  context.case(
    "stream-cut",
    "a streamed command whose output is cut mid-way throws typed, or ends with its whole output: never a short exited",
    async () => {
      if (streamRoute === undefined || context.runtime.execStream === undefined) {
        // Declared only where the options name a stream route (see below); unreachable otherwise.
        return assert.fail("stream-cut needs routes.stream and execStream");
      }
      const handle = await context.launch("stream-cut");
      try {
        const { emulator, runtime } = context;
        emulator.resetRequests();
        emulator.injectFault({ route: streamRoute, fault: { kind: "drop-mid-stream", afterEvents: 1 } });
        const events: ExecEvent[] = [];
        const outcome = await context.call(
          (async () => {
            for await (const event of runtime.execStream!(handle, { shell: "echo first; sleep 0.2; echo second" }))
              events.push(event);
          })(),
          "execStream under drop-mid-stream",
        );
        emulator.clearFaults();
        assert.ok(emulator.countRequests(streamRoute) > 0, "the stream route was used, so the cut happened");
        if (!outcome.ok) {
          expectTypedFailure(outcome, "execStream under drop-mid-stream");
          return;
        }
        const exited = events.at(-1);
        assert.equal(exited?.type, "exited", "a stream that did not throw ends with exited");
        const result = (exited as Extract<ExecEvent, { type: "exited" }>).result;
        assert.deepEqual(
          [result.stdout, result.exitCode],
          ["first\nsecond\n", 0],
          "a stream cut mid-way that ended without an error reports its whole output",
        );
      } finally {
        await context.destroy(handle);
      }
    },
    streamRoute === undefined ? "the options name no stream route (routes.stream)" : undefined,
  );

  context.case(
    "exec-past-deadline",
    "a command start slower than the call's deadline rejects DEADLINE_EXCEEDED before its answer",
    async () => {
      const handle = await context.launch("exec-past-deadline");
      try {
        const { emulator } = context;
        emulator.resetRequests();
        emulator.injectFault({ route: routes.exec, fault: { kind: "latency", ms: context.deadlineMs * 4 } });
        const outcome = await context.call(
          context.runtime.exec(handle, { argv: ["true"] }, { timeoutMs: context.deadlineMs }),
          "an exec past its deadline",
        );
        const answered = emulator.requests.some(
          (request) => matches(routes.exec, request.route) && request.status !== 0,
        );
        expectTypedFailure(outcome, "exec", ["DEADLINE_EXCEEDED"]);
        assert.equal(answered, false, "the exec rejected before the emulator answered its start, not after");
      } finally {
        await context.destroy(handle);
      }
    },
  );
}

function matches(selector: string | RegExp, route: string): boolean {
  if (typeof selector === "string") return selector === route;
  selector.lastIndex = 0;
  return selector.test(route);
}
