import assert from "node:assert/strict";
import type { OpOptions, SandboxHandle, SandboxRuntime } from "@sandport/core";
import { collectEvents, expectCode } from "./assertions.js";
import type { CheckGroup } from "./suite.js";

/** Per-call options every method must refuse, before it sends anything. */
const MALFORMED_OPTIONS: readonly [string, unknown][] = [
  ["a signal that is not an AbortSignal", { signal: {} }],
  ["a negative timeoutMs", { timeoutMs: -5 }],
  ["a timeoutMs that is a string", { timeoutMs: "5000" }],
  ["options that are a string", "fast"],
];

/** Session ids the port refuses everywhere. */
const BAD_SESSION_IDS: readonly string[] = ["job 42", "", ".", "..", "a/b", "x".repeat(129), "tab\there"];

/**
 * Registers the port rules every runtime applies the same way: per-call
 * options validated by every method (and, where the fixture counts requests,
 * nothing sent), one `sessionId` format, and one `findByLabels` query rule.
 */
export function declarePortRuleChecks<H extends SandboxHandle>(group: CheckGroup<H>): void {
  const { runtime, suite } = group;
  const caps = suite.capabilities;

  group.check("port.op-options", async () => {
    const handle = group.sandbox();
    const before = suite.requestCount?.();
    for (const [what, options] of MALFORMED_OPTIONS) {
      for (const [method, call] of methodCalls(runtime, handle, options as OpOptions)) {
        await expectCode(call, "INVALID_REQUEST", `${method} with ${what}`);
      }
    }
    if (before !== undefined) {
      assert.equal(suite.requestCount?.(), before, "a refused call sent no request to the provider");
    }
    const still = await runtime.exec(handle, { shell: "echo alive" });
    assert.equal(still.stdout, "alive\n", "nothing was destroyed or stopped by a refused call");
  });

  group.check(
    "port.session-id",
    async () => {
      const handle = group.sandbox();
      const before = suite.requestCount?.();
      for (const sessionId of BAD_SESSION_IDS) {
        await expectCode(
          () => runtime.startCommand?.(handle, { sessionId, shell: "echo started" }),
          "INVALID_REQUEST",
          `startCommand with sessionId ${JSON.stringify(sessionId)}`,
        );
      }
      if (before !== undefined) assert.equal(suite.requestCount?.(), before, "a refused start sent nothing");
      const ref = await runtime.startCommand?.(handle, { sessionId: `job-42.${suite.token}`, shell: "true" });
      assert.equal(ref?.sessionId, `job-42.${suite.token}`);
    },
    { unavailable: caps.asyncExec === true ? undefined : `asyncExec is ${caps.asyncExec}` },
  );

  group.check(
    "port.label-query",
    async () => {
      const handle = group.sandbox();
      const all = await runtime.findByLabels?.({});
      assert.ok(
        all?.some((found) => found.id === handle.id),
        "findByLabels({}) includes this runtime's sandbox",
      );
      await expectCode(
        () => runtime.findByLabels?.(undefined as unknown as Record<string, string>),
        "INVALID_REQUEST",
        "findByLabels(undefined)",
      );
    },
    { unavailable: caps.labelSearch === true ? undefined : `labelSearch is ${caps.labelSearch}` },
  );
}

/** One call per method the runtime has, each passing `op` and otherwise well-formed. */
function methodCalls<H extends SandboxHandle>(
  runtime: SandboxRuntime<H>,
  handle: H,
  op: OpOptions,
): [string, () => Promise<unknown>][] {
  const ref = { sessionId: "conformance-op-options", commandId: "conformance-op-options" };
  const calls: [string, (() => Promise<unknown>) | undefined][] = [
    ["launch", () => runtime.launch({}, op)],
    ["exec", () => runtime.exec(handle, { shell: "true" }, op)],
    ["writeFiles", () => runtime.writeFiles(handle, [{ path: "op-options.txt", content: "x" }], op)],
    ["readFile", () => runtime.readFile(handle, "op-options.txt", op)],
    ["destroy", () => runtime.destroy(handle, op)],
    [
      "execStream",
      runtime.execStream && (() => collectEvents(() => runtime.execStream!(handle, { shell: "true" }, op))),
    ],
    ["getById", runtime.getById && (() => runtime.getById!(handle.id, op))],
    ["findByLabels", runtime.findByLabels && (() => runtime.findByLabels!({}, op))],
    ["launchDetached", runtime.launchDetached && (() => runtime.launchDetached!({}, op))],
    ["stop", runtime.stop && (() => runtime.stop!(handle, op))],
    ["start", runtime.start && (() => runtime.start!(handle, op))],
    [
      "startCommand",
      runtime.startCommand && (() => runtime.startCommand!(handle, { sessionId: ref.sessionId, shell: "true" }, op)),
    ],
    ["commandStatus", runtime.commandStatus && (() => runtime.commandStatus!(handle, ref, op))],
    ["commandLogs", runtime.commandLogs && (() => runtime.commandLogs!(handle, ref, op))],
    ["listDir", runtime.listDir && (() => runtime.listDir!(handle, "", op))],
    ["stat", runtime.stat && (() => runtime.stat!(handle, "", op))],
    ["mkdir", runtime.mkdir && (() => runtime.mkdir!(handle, "op-options", op))],
    ["remove", runtime.remove && (() => runtime.remove!(handle, "op-options", op))],
    ["spawn", runtime.spawn && (() => runtime.spawn!(handle, { shell: "true" }, op))],
    ["portEndpoint", runtime.portEndpoint && (() => runtime.portEndpoint!(handle, 18_080, op))],
  ];
  return calls.filter((entry): entry is [string, () => Promise<unknown>] => entry[1] !== undefined);
}
