import type { PriceName, PriceTable } from "./price-table.js";
import type { PriceLine, SandboxUsage, UnpricedItem, UsageEstimate } from "./sandbox-usage.js";

const GIB = 1024 ** 3;

/** What an estimate multiplies: a sandbox's usage without its estimate. */
export type MeteredUsage = Omit<SandboxUsage, "estimate">;

/**
 * Applies the caller's prices for `provider` to a sandbox's usage: each price
 * the table has becomes a line (rate × quantity) unless the usage cannot say
 * the quantity (a memory price for a launch that set no memory size), which is
 * listed as unpriced with the reason. Nothing is assumed: a provider the table
 * does not name gets `total: undefined` and says so.
 */
export function estimateUsage(usage: MeteredUsage, table: PriceTable, provider: string): UsageEstimate {
  const prices = table.providers[provider];
  if (prices === undefined) {
    return {
      currency: table.currency,
      provider,
      total: undefined,
      lines: [],
      unpriced: [{ price: "all", reason: `the price table has no prices for provider ${JSON.stringify(provider)}` }],
    };
  }
  const seconds = usage.sandboxSeconds;
  const { memoryMiB, cpus } = usage.resources;
  const quantities: Record<PriceName, { readonly quantity: number; readonly unit: string } | string> = {
    sandboxSecond: { quantity: seconds, unit: "sandbox-second" },
    memoryGiBSecond:
      memoryMiB === undefined
        ? "the launch set no resources.memoryMiB, so the memory the sandbox had is not known here"
        : { quantity: (memoryMiB / 1024) * seconds, unit: "GiB-second" },
    vcpuSecond:
      cpus === undefined
        ? "the launch set no resources.cpus, so the vCPUs the sandbox had are not known here"
        : { quantity: cpus * seconds, unit: "vCPU-second" },
    execSecond: { quantity: usage.execs.durationMs / 1000, unit: "exec-second" },
    gibIn: { quantity: (usage.bytesIn.files + usage.bytesIn.stdin) / GIB, unit: "GiB" },
    gibOut: { quantity: (usage.bytesOut.files + usage.bytesOut.output) / GIB, unit: "GiB" },
  };
  const lines: PriceLine[] = [];
  const unpriced: UnpricedItem[] = [];
  for (const [price, rate] of Object.entries(prices) as [PriceName, number | undefined][]) {
    if (rate === undefined) continue;
    const measured = quantities[price];
    if (typeof measured === "string") unpriced.push({ price, reason: measured });
    else lines.push({ price, rate, ...measured, amount: rate * measured.quantity });
  }
  const total = lines.reduce((sum, line) => sum + line.amount, 0);
  return { currency: table.currency, provider, total, lines, unpriced };
}
