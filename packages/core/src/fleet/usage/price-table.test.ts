import assert from "node:assert/strict";
import { test } from "node:test";
import { validatePriceTable } from "./price-table.js";

test("a price table in one currency, prices by provider, is accepted as given", () => {
  const table = {
    currency: "EUR",
    providers: { local: { sandboxSecond: 0 }, e2b: { vcpuSecond: 0.000014, gibIn: 0 } },
  };
  assert.equal(validatePriceTable(table), table);
});

test("a malformed price table is refused before anything runs", () => {
  const refused = [
    [{ providers: {} }, /currency must be a non-empty string/],
    [{ currency: " ", providers: {} }, /currency must be a non-empty string/],
    [{ currency: "USD" }, /providers must be an object/],
    [{ currency: "USD", providers: [] }, /providers must be an object/],
    [{ currency: "USD", providers: { e2b: { perSecond: 1 } } }, /unknown key "perSecond"/],
    [{ currency: "USD", providers: { e2b: { sandboxSecond: -1 } } }, /e2b\.sandboxSecond must be a finite number/],
    [{ currency: "USD", providers: { e2b: { sandboxSecond: "0.1" } } }, /finite number/],
    [{ currency: "USD", providers: { e2b: { sandboxSecond: Number.NaN } } }, /finite number/],
    [{ currency: "USD", providers: {}, tax: 0.2 }, /unknown key "tax"/],
  ] as const;
  for (const [table, message] of refused) {
    assert.throws(() => validatePriceTable(table), { code: "INVALID_REQUEST", message }, JSON.stringify(table));
  }
});
