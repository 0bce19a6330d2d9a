import {
  DECLARED_CAPABILITIES,
  isPendingEvidence,
  MODE_NAMES,
  type ProbedCapability,
  type ProbeRecord,
  SandportError,
} from "@sandport/core";
import { PROBES, type ProbeContext, probeParameters } from "./probes.js";

/**
 * Probes every capability the runtime declares `unknown` and has a probe for,
 * one after another, timing each and keeping the parameters it ran with. A probe that throws or cannot establish its
 * capability is recorded as failed with the reason, never dropped. `onProbe`
 * hears of each as it starts (`record` undefined) and as it ends.
 */
export async function runProbes(
  context: ProbeContext,
  onProbe: (capability: ProbedCapability, record: ProbeRecord | undefined) => void,
): Promise<{ records: ProbeRecord[]; unprobed: ProbedCapability[] }> {
  const declared = context.runtime.capabilities;
  const pending: ProbedCapability[] = [
    ...DECLARED_CAPABILITIES.filter((name) => isPendingEvidence(declared[name])),
    ...MODE_NAMES.filter((name) => isPendingEvidence(declared.modes[name])),
  ];
  const records: ProbeRecord[] = [];
  for (const capability of pending) {
    const probe = PROBES[capability];
    if (!probe) continue;
    onProbe(capability, undefined);
    const started = performance.now();
    const parameters = probeParameters(capability, context);
    const used = parameters === undefined ? {} : { parameters };
    let record: ProbeRecord;
    try {
      const seen = await probe(context);
      const durationMs = Math.round(performance.now() - started);
      record =
        typeof seen === "object"
          ? { capability, outcome: "failed", reason: `not established: ${seen.notSeen}`, durationMs, ...used }
          : { capability, outcome: "passed", value: seen, durationMs, ...used };
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      record = { capability, outcome: "failed", reason: reasonOf(error), durationMs, ...used };
    }
    records.push(record);
    onProbe(capability, record);
    if (context.signal.aborted) break;
  }
  return { records, unprobed: pending.filter((name) => !PROBES[name]) };
}

function reasonOf(error: unknown): string {
  if (SandportError.isInstance(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
