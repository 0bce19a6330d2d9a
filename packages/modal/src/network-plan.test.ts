// The translation of the port's network policy into Modal's create fields.
import assert from "node:assert/strict";
import { test } from "node:test";
import { validateNetworkPolicy } from "@sandport/core";
import { refuseUnenforceableNetwork } from "@sandport/core/adapter";
import { expectCode } from "@sandport/testkit/assertions";
import { modalCapabilities } from "./capabilities.js";
import { networkFields } from "./network-plan.js";

const fields = (policy: unknown, fallback = true) => networkFields(validateNetworkPolicy(policy), fallback);

test("all, none, no policy and an empty allow list set blockNetwork alone", () => {
  assert.deepEqual(fields("all"), { blockNetwork: false });
  assert.deepEqual(fields("none"), { blockNetwork: true });
  assert.deepEqual(fields(undefined, false), { blockNetwork: true }, "the runtime's default");
  assert.deepEqual(fields({ allow: [] }), { blockNetwork: true }, "an empty list allows nothing");
});

test("an allow list of ranges becomes outboundCidrAllowlist, IPv6 included, with blockNetwork false", () => {
  assert.deepEqual(fields({ allow: ["10.0.0.0/8", "2001:db8::/32"] }), {
    blockNetwork: false,
    outboundCidrAllowlist: ["10.0.0.0/8", "2001:db8::/32"],
  });
});

test("the declared policy (cidr) refuses a domain entry, naming it, before any translation", async () => {
  assert.equal(modalCapabilities.modes.networkPolicy, "cidr");
  const policy = validateNetworkPolicy({ allow: ["10.0.0.0/8", "api.example.com"] });
  const error = await expectCode(
    Promise.resolve().then(() => refuseUnenforceableNetwork(policy, modalCapabilities.modes.networkPolicy, "modal")),
    "UNSUPPORTED",
  );
  assert.match(error.message, /"api\.example\.com" is a domain/);
});
