import { afterEach, beforeEach, describe } from "node:test";
import type { SandboxHandle } from "@sandport/core";
import { declareExecCases } from "./exec-cases.js";
import { WireFaultContext } from "./fault-context.js";
import { declareLaunchCases } from "./launch-cases.js";
import { WIRE_FAULT_CASES, type WireFaultOptions } from "./options.js";
import { declareTeardownCases } from "./teardown-cases.js";

/**
 * Declares the shared wire-fault suite for one adapter as `node:test` tests: the same faults,
 * injected by the adapter's emulator on the routes it names, against its real vendor SDK. The
 * faults: 5xx and 429 with `Retry-After` on create, list, command start and delete; connections
 * dropped before the request was processed and after (a lost answer, output cut mid-way); a lost
 * create answer; latency past the call's deadline. Each case (titled `<id>: <what it asserts>`,
 * ids in `WIRE_FAULT_CASES`) asserts:
 *
 * - every error is typed: a `SandportError`, never `UNEXPECTED` (a vendor transport failure
 *   surfacing as `UNEXPECTED` fails the case);
 * - no call hangs: a call past its deadline rejects before the emulator answers, and every call
 *   settles within `hangMs`;
 * - every sandbox the case made is destroyed or was reported as a possible leak
 *   (`details.possibleLeak` on an error the case saw or `runtime.settle()` returned), checked
 *   after each case against the emulator's live sandboxes.
 *
 * Cases that launch or destroy leave the emulator as they found it; call it inside the adapter's
 * own `describe`, whose `before` starts the emulator and the runtime the getters return.
 *
 * @example
 * describeWireFaults({
 *   runtime: () => runtime,
 *   emulator: () => emulator,
 *   routes: { create: "POST /v2/sandboxes", list: "GET /v2/sandboxes", delete: "DELETE /sandboxes/:id", exec: "rpc process.Process/Start" },
 * });
 */
export function describeWireFaults<H extends SandboxHandle>(options: WireFaultOptions<H>): void {
  const unknown = Object.keys(options.skip ?? {}).filter((id) => !(WIRE_FAULT_CASES as readonly string[]).includes(id));
  if (unknown.length > 0) throw new RangeError(`describeWireFaults: unknown case(s) to skip: ${unknown.join(", ")}`);
  describe(options.name ?? "shared wire faults", () => {
    const context = new WireFaultContext(options);
    beforeEach(() => context.beforeCase());
    afterEach(() => context.afterCase());
    declareLaunchCases(context);
    declareExecCases(context);
    declareTeardownCases(context);
  });
}
