// The translation of the port's network policy into Freestyle's firewall rules.
import assert from "node:assert/strict";
import { test } from "node:test";
import { validateNetworkPolicy } from "@sandport/core";
import { refuseUnenforceableNetwork } from "@sandport/core/adapter";
import { expectCode } from "@sandport/testkit/assertions";
import { validateFirewallSpec } from "freestyle";
import { freestyleCapabilities } from "./capabilities.js";
import { firewallRules } from "./network-plan.js";

const rules = (policy: unknown, fallback = true) => firewallRules(validateNetworkPolicy(policy), fallback);
const PUBLIC = { action: "allow", source: {}, destination: { public: true } };

test("all is the public-egress rule; none, an empty allow list and a closed default are no rule", () => {
  assert.deepEqual(rules("all"), [PUBLIC]);
  assert.deepEqual(rules(undefined, true), [PUBLIC], "the runtime's default");
  assert.deepEqual(rules("none"), []);
  assert.deepEqual(rules(undefined, false), []);
  assert.deepEqual(rules({ allow: [] }), []);
});

test("an allow list is one rule per range from the VM, which the SDK's own validator accepts", () => {
  const allowed = rules({ allow: ["203.0.113.0/24", "2001:db8::/32"] });
  assert.deepEqual(allowed, [
    { action: "allow", source: {}, destination: { cidr: "203.0.113.0/24" } },
    { action: "allow", source: {}, destination: { cidr: "2001:db8::/32" } },
  ]);
  assert.doesNotThrow(() => validateFirewallSpec({ rules: allowed }));
});

test("the declared policy (cidr) refuses a domain entry, naming it", async () => {
  assert.equal(freestyleCapabilities.modes.networkPolicy, "cidr");
  const policy = validateNetworkPolicy({ allow: ["api.example.com"] });
  const error = await expectCode(
    Promise.resolve().then(() =>
      refuseUnenforceableNetwork(policy, freestyleCapabilities.modes.networkPolicy, "freestyle"),
    ),
    "UNSUPPORTED",
  );
  assert.match(error.message, /"api\.example\.com" is a domain/);
});
