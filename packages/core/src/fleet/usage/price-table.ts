import { invalidRequest } from "../../errors/factories.js";
import { keyList, refuseUnknownShape } from "../../validation/known-keys.js";

/**
 * One provider's prices, each per unit of what the usage meter measures. All
 * are the caller's numbers (from its contract or the provider's price page on
 * the day it read it): Sandport fetches none and assumes none.
 */
export interface ProviderPrices {
  /** Per second of a sandbox's life (launched until destroyed). */
  readonly sandboxSecond?: number;
  /** Per GiB-second of memory: the launch's `resources.memoryMiB` over the sandbox's life. */
  readonly memoryGiBSecond?: number;
  /** Per vCPU-second: the launch's `resources.cpus` over the sandbox's life. */
  readonly vcpuSecond?: number;
  /** Per second a command ran (the sum of the execs' durations). */
  readonly execSecond?: number;
  /** Per GiB sent into the sandbox (files written, stdin). */
  readonly gibIn?: number;
  /** Per GiB read out of it (files read, command output). */
  readonly gibOut?: number;
}

/** The name of one price in {@link ProviderPrices}. */
export type PriceName = keyof ProviderPrices;

/** Every key of {@link ProviderPrices}, in the order an estimate lists them. */
export const PRICE_NAMES = keyList<ProviderPrices>({
  sandboxSecond: true,
  memoryGiBSecond: true,
  vcpuSecond: true,
  execSecond: true,
  gibIn: true,
  gibOut: true,
});

/**
 * The caller's prices, by provider name (`runtime.provider`), in one currency.
 * A usage estimate says the currency and which of these prices it applied.
 */
export interface PriceTable {
  /** The currency of every price, as the caller writes it (`"USD"`, `"EUR"`, `"credits"`). */
  readonly currency: string;
  /** Prices by provider name. A provider without an entry gets no estimate, and its usage says so. */
  readonly providers: Readonly<Record<string, ProviderPrices>>;
}

/** Every key of {@link PriceTable}. */
export const PRICE_TABLE_KEYS = keyList<PriceTable>({ currency: true, providers: true });

/**
 * Refuses (`INVALID_REQUEST`) a price table with an unknown key, an empty
 * currency, or a price that is not a finite number of at least 0.
 */
export function validatePriceTable(table: unknown, field = "prices"): PriceTable {
  refuseUnknownShape(table, PRICE_TABLE_KEYS, field);
  const { currency, providers } = table as { currency?: unknown; providers?: unknown };
  if (typeof currency !== "string" || currency.trim() === "") {
    throw invalidRequest(`${field}.currency must be a non-empty string`, { field: `${field}.currency` });
  }
  if (typeof providers !== "object" || providers === null || Array.isArray(providers)) {
    throw invalidRequest(`${field}.providers must be an object of prices by provider name`, {
      field: `${field}.providers`,
    });
  }
  for (const [provider, prices] of Object.entries(providers)) {
    const where = `${field}.providers.${provider}`;
    refuseUnknownShape(prices, PRICE_NAMES, where);
    for (const [name, value] of Object.entries(prices as object)) {
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
        throw invalidRequest(`${where}.${name} must be a finite number of at least 0, got ${String(value)}`, {
          field: `${where}.${name}`,
        });
      }
    }
  }
  return table as PriceTable;
}
