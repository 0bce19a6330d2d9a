import {
  type CapabilityName,
  DECLARED_CAPABILITIES,
  type EvidenceWarning,
  isAbsence,
  MODE_NAMES,
  type ResolvedCapabilities,
  resolveCapabilities,
  STRUCTURAL_CAPABILITIES,
} from "@sandport/core";
import type { CliContext, ProviderFlags } from "../context.js";
import { readEvidenceFiles } from "../evidence-files.js";
import { EXIT } from "../exit-codes.js";
import type { Colors } from "../output/colors.js";
import { Progress } from "../output/progress.js";
import { renderTable } from "../output/table.js";
import { createRuntime } from "../providers/create-runtime.js";
import type { ProviderDescriptor } from "../providers/descriptor.js";
import { providersFor, settingsFor } from "../providers/load.js";

/** Flags of `sandport capabilities`. */
interface CapabilitiesFlags extends ProviderFlags {
  readonly evidence: string[];
  readonly liveEndpoint: string[];
}

/** How a cell was established: by the methods, the declaration, live evidence, or absent (and why). */
type Mark = "structural" | "declared" | "observed" | "absent";

/** One capability of one provider, as printed. */
interface Cell {
  readonly value: unknown;
  readonly mark: Mark;
  readonly source: string;
  /** An observed cell only: where the evidence that established it was gathered (`"default"`, or a URL). */
  readonly observedAt?: readonly string[];
}

const NAMES: readonly CapabilityName[] = [...STRUCTURAL_CAPABILITIES, ...DECLARED_CAPABILITIES, ...MODE_NAMES];

/**
 * `sandport capabilities`: every selected provider's runtime is built for
 * inspection (credentials not needed: nothing is called) and resolved, with
 * the given evidence records; records of another provider or adapter version,
 * or gathered at a custom endpoint (an emulator) that `--live-endpoint` does not
 * name as the real service, are ignored with a warning. A cell observed at a
 * custom endpoint is marked so.
 */
export default async function capabilities(context: CliContext, flags: CapabilitiesFlags): Promise<number> {
  const records = await readEvidenceFiles(context.cwd, flags.evidence);
  const results: { descriptor: ProviderDescriptor; resolved: ResolvedCapabilities; warnings: EvidenceWarning[] }[] = [];
  const progress = new Progress(context.terminal, { quiet: flags.json });
  for (const descriptor of providersFor(context, flags)) {
    progress.step(`inspecting ${descriptor.provider}`);
    const { runtime } = await createRuntime(
      descriptor,
      settingsFor(context, flags),
      context.terminal.redactor,
      "inspect",
    );
    const warnings: EvidenceWarning[] = [];
    const forThis =
      flags.provider === undefined ? records.filter((record) => record.provider === runtime.provider) : records;
    const resolved = resolveCapabilities(runtime, forThis, {
      adapterVersion: descriptor.version,
      liveEndpoints: flags.liveEndpoint,
      onWarning: (warning) => warnings.push(warning),
    });
    results.push({ descriptor, resolved, warnings });
  }
  progress.stop();
  if (flags.json) {
    context.terminal.json({
      providers: results.map(({ descriptor, resolved, warnings }) => ({
        provider: descriptor.provider,
        package: descriptor.packageName,
        version: descriptor.version,
        capabilities: Object.fromEntries(NAMES.map((name) => [name, cellOf(resolved, name)])),
        warnings: warnings.map(({ code, message }) => ({ code, message })),
      })),
    });
    return EXIT.OK;
  }
  for (const { warnings } of results) for (const warning of warnings) context.terminal.warn(warning.message);
  const color = context.terminal.color;
  const header = ["capability", ...results.map(({ descriptor }) => `${descriptor.provider} ${descriptor.version}`)];
  const rows = NAMES.map((name) => [name, ...results.map(({ resolved }) => show(cellOf(resolved, name), color))]);
  context.terminal.line(renderTable(header, rows));
  context.terminal.line();
  context.terminal.line(
    color.dim("structural: from the methods · declared: by the adapter · observed: live evidence · absent: why not"),
  );
  const custom = new Set(
    results.flatMap(({ resolved }) =>
      NAMES.flatMap((name) => (resolved.observedAt[name] ?? []).filter((where) => where !== "default")),
    ),
  );
  for (const url of custom) {
    context.terminal.line(
      color.dim(`observed, custom endpoint: evidence gathered at ${url}, named as the real service by --live-endpoint`),
    );
  }
  return EXIT.OK;
}

function cellOf(resolved: ResolvedCapabilities, name: CapabilityName): Cell {
  const value = resolved[name];
  const source = resolved.sources[name];
  const observedAt = resolved.observedAt[name];
  return { value, mark: isAbsence(value) ? "absent" : source, source, ...(observedAt ? { observedAt } : {}) };
}

function show(cell: Cell, color: Colors): string {
  const text = cell.value === true ? "yes" : String(cell.value);
  if (cell.mark === "absent") {
    const paint = cell.value === "unknown" ? color.yellow : cell.value === "unsupported" ? color.red : color.dim;
    return `${paint(text)} ${color.dim("(absent)")}`;
  }
  const paint = cell.mark === "observed" ? color.cyan : color.green;
  const custom = cell.observedAt?.some((where) => where !== "default") === true;
  return `${paint(text)} ${color.dim(`(${cell.mark}${custom ? ", custom endpoint" : ""})`)}`;
}
