// The translation of the port's network policy into Daytona's create fields,
// and the refusals of what Daytona's lists cannot express.
import assert from "node:assert/strict";
import { test } from "node:test";
import { validateNetworkPolicy } from "@sandport/core";
import { expectCode } from "@sandport/testkit/assertions";
import { networkFields, refuseDroppedDomainList } from "./network-plan.js";

const fields = (policy: unknown, fallback = true) => networkFields(validateNetworkPolicy(policy), fallback);

test("all, none, no policy and an empty allow list set networkBlockAll alone", () => {
  assert.deepEqual(fields("all"), { networkBlockAll: false });
  assert.deepEqual(fields("none"), { networkBlockAll: true });
  assert.deepEqual(fields(undefined, false), { networkBlockAll: true }, "the runtime's default");
  assert.deepEqual(fields(undefined, true), { networkBlockAll: false });
  assert.deepEqual(fields({ allow: [] }), { networkBlockAll: true }, "an empty list allows nothing");
});

test("an allow list splits into networkAllowList (ranges) and domainAllowList (names), comma-separated", () => {
  assert.deepEqual(fields({ allow: ["API.example.com", "10.0.0.0/8", "*.example.org", "203.0.113.7/32"] }), {
    networkBlockAll: false,
    networkAllowList: "10.0.0.0/8,203.0.113.7/32",
    domainAllowList: "api.example.com,*.example.org",
  });
  assert.deepEqual(fields({ allow: ["192.168.1.0/24"] }), {
    networkBlockAll: false,
    networkAllowList: "192.168.1.0/24",
  });
  assert.deepEqual(fields({ allow: ["example.com"] }), { networkBlockAll: false, domainAllowList: "example.com" });
});

test("entries Daytona cannot express are refused naming them: IPv6, a port, names outside its grammar", async () => {
  for (const [entry, reason] of [
    ["2001:db8::/32", /IPv4 ranges only/],
    ["api.example.com:443", /every port/],
    ["localhost", /two or more labels/],
    ["my_host.example.com", /letters, digits, '-'/],
    ["example.c0m", /last of letters only/],
  ] as const) {
    const error = await expectCode(
      Promise.resolve().then(() => fields({ allow: ["example.com", entry] })),
      "UNSUPPORTED",
    );
    assert.ok(error.message.includes(JSON.stringify(entry)), `${entry} is named: ${error.message}`);
    assert.match(error.message, reason);
  }
});

test("more than 10 ranges or 10 names is refused; 10 of each is not", async () => {
  const ranges = Array.from({ length: 11 }, (_, index) => `10.0.${index}.0/24`);
  const names = Array.from({ length: 11 }, (_, index) => `host${index}.example.com`);
  const ten = fields({ allow: [...ranges.slice(0, 10), ...names.slice(0, 10)] });
  assert.equal(ten.networkAllowList?.split(",").length, 10);
  assert.equal(ten.domainAllowList?.split(",").length, 10);
  const manyRanges = await expectCode(
    Promise.resolve().then(() => fields({ allow: ranges })),
    "UNSUPPORTED",
  );
  assert.match(manyRanges.message, /10\.0\.10\.0\/24.*at most 10 ranges/);
  const manyNames = await expectCode(
    Promise.resolve().then(() => fields({ allow: names })),
    "UNSUPPORTED",
  );
  assert.match(manyNames.message, /host10\.example\.com.*at most 10 names/);
});

test("a sandbox that does not report the domainAllowList it was asked for is refused", async () => {
  refuseDroppedDomainList(undefined, undefined);
  refuseDroppedDomainList("example.com", "example.com");
  const error = await expectCode(
    Promise.resolve().then(() => refuseDroppedDomainList("example.com", undefined)),
    "UNSUPPORTED",
  );
  assert.match(error.message, /older than 0\.216/);
});
