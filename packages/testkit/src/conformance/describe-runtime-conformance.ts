import { after, describe } from "node:test";
import type { SandboxHandle } from "@sandport/core";
import { declareAsyncChecks } from "./async-exec.js";
import { declareCapabilityChecks } from "./capabilities.js";
import { isConformanceCheckId } from "./checks.js";
import { declareCommandOutcomeChecks } from "./command-outcomes.js";
import { declareCwdChecks } from "./cwd.js";
import { declareExecChecks } from "./exec.js";
import { declareLimitChecks } from "./exec-limits.js";
import { declareFileOpsChecks } from "./file-ops.js";
import { declareFileStreamChecks } from "./file-stream.js";
import { declareFileChecks } from "./files.js";
import { declareInteractiveChecks } from "./interactive.js";
import { declareLifecycleChecks } from "./lifecycle.js";
import type { RuntimeConformanceOptions } from "./options.js";
import { declarePathChecks } from "./paths.js";
import { declarePortRuleChecks } from "./port-rules.js";
import { declarePortChecks } from "./ports.js";
import { declareResourceLimitChecks } from "./resource-limits.js";
import { declareSnapshotChecks } from "./snapshots.js";
import { declareStreamingChecks } from "./streaming.js";
import { ConformanceSuite } from "./suite.js";
import { declareTerminalChecks } from "./terminal.js";
import { declareValidationChecks } from "./validation.js";

/**
 * Declares the shared conformance suite for one runtime as `node:test` tests:
 * a `describe(options.name)` holding one `describe` per concern (files, exec,
 * lifecycle, async, streaming, fileops, interactive, terminal, ports, capabilities), each check titled
 * `<id>: <what it asserts>` (ids in `CONFORMANCE_CHECKS`).
 *
 * - Each concern launches one sandbox in `before` that its checks share, and
 *   destroys it in `after`; checks launch extra sandboxes only where they need
 *   a second one. Whatever is still alive when the suite ends is destroyed,
 *   then `fixture.cleanup` runs; a teardown failure fails the suite.
 * - Checks of a capability the runtime does not have are skipped, and the skip
 *   says why (`streaming is not-exposed: ...`); `options.skip` skips by id with
 *   the caller's reason. The capability checks then prove the other half: every
 *   absent capability's methods are absent, and no check of a claimed one failed.
 *
 * Call it at the top level of a test file (or inside a `describe`).
 *
 * @example
 * describeRuntimeConformance({
 *   name: "LocalRuntime (none)",
 *   createRuntime: () => ({ runtime: new LocalRuntime({ root, isolation: "none" }) }),
 * });
 */
export function describeRuntimeConformance<H extends SandboxHandle>(options: RuntimeConformanceOptions<H>): void {
  checkOptions(options);
  if (options.unavailable !== undefined) {
    describe(options.name, { skip: options.unavailable }, () => {});
    return;
  }
  describe(options.name, async () => {
    const suite = new ConformanceSuite(options, await options.createRuntime());
    after(() => suite.teardown(), { timeout: suite.timeouts.hookMs });
    after(() => {
      // Loud on purpose: a known deviation is a failure the run tolerates, not a pass.
      for (const line of suite.deviations) process.stderr.write(`${line}\n`);
    });
    const caps = suite.capabilities;
    const missing = (
      name: "asyncExec" | "streaming" | "fileOps" | "interactive" | "ports" | "pty" | "snapshots",
      methods: string,
    ) => (caps[name] === true ? undefined : `${name} is ${caps[name]}: the runtime has no ${methods}`);

    suite.group("files", {}, (group) => {
      declareFileChecks(group);
      declarePathChecks(group);
      declareFileStreamChecks(group);
    });
    suite.group("exec", {}, (group) => {
      declareExecChecks(group);
      declareCwdChecks(group);
      declareLimitChecks(group);
      declareCommandOutcomeChecks(group, "exec");
      declareValidationChecks(group);
    });
    suite.group("limits", { launch: false }, declareResourceLimitChecks);
    suite.group("lifecycle", {}, declareLifecycleChecks);
    suite.group("port", {}, declarePortRuleChecks);
    suite.group(
      "async",
      { unavailable: missing("asyncExec", "startCommand/commandStatus/commandLogs with getById") },
      (group) => {
        declareAsyncChecks(group);
        declareCommandOutcomeChecks(group, "async");
      },
    );
    suite.group("streaming", { unavailable: missing("streaming", "execStream") }, (group) => {
      declareStreamingChecks(group);
      declareCommandOutcomeChecks(group, "streaming");
    });
    suite.group("fileops", { unavailable: missing("fileOps", "listDir/stat/mkdir/remove") }, declareFileOpsChecks);
    suite.group("interactive", { unavailable: missing("interactive", "spawn") }, (group) => {
      declareInteractiveChecks(group);
      declareCommandOutcomeChecks(group, "interactive");
    });
    suite.group("terminal", { unavailable: missing("pty", "openTerminal") }, declareTerminalChecks);
    suite.group(
      "snapshots",
      { unavailable: missing("snapshots", "snapshot/listSnapshots/deleteSnapshot") },
      declareSnapshotChecks,
    );
    suite.group("ports", { unavailable: missing("ports", "portEndpoint"), launch: false }, declarePortChecks);
    if (options.additionalTests) describe("additional", () => options.additionalTests?.(suite));
    suite.group("capabilities", { launch: false }, declareCapabilityChecks);
  });
}

function checkOptions<H extends SandboxHandle>(options: RuntimeConformanceOptions<H>): void {
  if (typeof options.name !== "string" || options.name.trim() === "") {
    throw new TypeError("describeRuntimeConformance: name must be a non-empty string");
  }
  if (typeof options.createRuntime !== "function") {
    throw new TypeError("describeRuntimeConformance: createRuntime must be a function");
  }
  if (
    options.unavailable !== undefined &&
    (typeof options.unavailable !== "string" || options.unavailable.trim() === "")
  ) {
    throw new TypeError("describeRuntimeConformance: unavailable needs a reason");
  }
  for (const [id, reason] of Object.entries(options.skip ?? {})) {
    if (!isConformanceCheckId(id)) throw new TypeError(`describeRuntimeConformance: skip names no check: ${id}`);
    if (typeof reason !== "string" || reason.trim() === "") {
      throw new TypeError(`describeRuntimeConformance: skip.${id} needs a reason`);
    }
  }
  for (const [id, reason] of Object.entries(options.knownDeviations ?? {})) {
    if (!isConformanceCheckId(id))
      throw new TypeError(`describeRuntimeConformance: knownDeviations names no check: ${id}`);
    if (typeof reason !== "string" || reason.trim() === "") {
      throw new TypeError(`describeRuntimeConformance: knownDeviations.${id} needs a reason`);
    }
    if (Object.hasOwn(options.skip ?? {}, id)) {
      throw new TypeError(`describeRuntimeConformance: ${id} is both skipped and a known deviation`);
    }
  }
  for (const [name, value] of Object.entries(options.timeouts ?? {})) {
    if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
      throw new TypeError(`describeRuntimeConformance: timeouts.${name} must be a positive integer`);
    }
  }
}
