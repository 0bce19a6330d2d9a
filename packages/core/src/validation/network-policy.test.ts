import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { cidrContains, parseNetworkRule, validateNetworkPolicy } from "./network-policy.js";
import { validateLaunchSpec } from "./requests.js";

/** The INVALID_REQUEST `run` throws, for its message and field. */
function refusal(run: () => unknown): SandportError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof SandportError);
    assert.equal(error.code, "INVALID_REQUEST");
    return error;
  }
  assert.fail("expected INVALID_REQUEST");
}

test("booleans and names take their canonical form", () => {
  assert.equal(validateLaunchSpec({ network: true }).network, "all");
  assert.equal(validateLaunchSpec({ network: false }).network, "none");
  assert.equal(validateLaunchSpec({ network: "all" }).network, "all");
  assert.equal(validateLaunchSpec({ network: "none" }).network, "none");
  assert.equal(validateLaunchSpec({}).network, undefined);
});

test("an allow list of domains, wildcards, ports and CIDR ranges is kept, lower-cased", () => {
  const allow = [
    "Example.COM",
    "*.pypi.org",
    "api.example.com:443",
    "10.0.0.0/8",
    "2001:db8::/32",
    "::1/128",
    "0.0.0.0/0",
  ];
  assert.deepEqual(validateLaunchSpec({ network: { allow } }).network, {
    allow: ["example.com", "*.pypi.org", "api.example.com:443", "10.0.0.0/8", "2001:db8::/32", "::1/128", "0.0.0.0/0"],
  });
  assert.deepEqual(validateNetworkPolicy({ allow: [] }), { allow: [] });
});

test("each bad entry is refused naming its index and text", () => {
  const bad: [unknown, string][] = [
    ["exa mple.com", "network.allow[0]"],
    ["*example.com", "network.allow[0]"],
    ["foo.*.com", "network.allow[0]"],
    ["example.com:0", "network.allow[0]"],
    ["example.com:65536", "network.allow[0]"],
    ["example.com:http", "network.allow[0]"],
    ["10.0.0.1", "network.allow[0]"],
    ["10.0.0.1:80", "network.allow[0]"],
    ["::1", "network.allow[0]"],
    ["10.0.0.1/8", "network.allow[0]"],
    ["10.0.0.0/33", "network.allow[0]"],
    ["2001:db8::/129", "network.allow[0]"],
    ["10.0.0/8", "network.allow[0]"],
    ["", "network.allow[0]"],
    [42, "network.allow[0]"],
    [`${"a".repeat(64)}.com`, "network.allow[0]"],
  ];
  for (const [entry, field] of bad) {
    const error = refusal(() => validateLaunchSpec({ network: { allow: [entry] } }));
    assert.equal(error.details?.field, field, `${JSON.stringify(entry)}: ${error.message}`);
    assert.match(error.message, new RegExp(field.replace(/[[\]]/g, "\\$&")));
  }
  assert.equal(
    refusal(() => validateLaunchSpec({ network: { allow: ["a.com", "b c"] } })).details?.field,
    "network.allow[1]",
  );
});

test("a policy of the wrong shape is refused", () => {
  for (const network of ["some", 1, null, [], { allow: "a.com" }, { allow: ["a.com"], deny: [] }]) {
    refusal(() => validateLaunchSpec({ network }));
  }
  refusal(() => validateLaunchSpec({ network: { allow: Array(257).fill("a.com") } }));
});

test("CIDR ranges contain their addresses and no others, IPv4-mapped IPv6 included", () => {
  const range = (entry: string) => {
    const rule = parseNetworkRule(entry);
    assert.equal(rule.kind, "cidr");
    return rule;
  };
  assert.equal(cidrContains(range("10.0.0.0/8"), "10.255.1.2"), true);
  assert.equal(cidrContains(range("10.0.0.0/8"), "11.0.0.1"), false);
  assert.equal(cidrContains(range("127.0.0.1/32"), "127.0.0.1"), true);
  assert.equal(cidrContains(range("127.0.0.1/32"), "127.0.0.2"), false);
  assert.equal(cidrContains(range("127.0.0.0/8"), "::ffff:127.0.0.5"), true);
  assert.equal(cidrContains(range("0.0.0.0/0"), "::1"), false);
  assert.equal(cidrContains(range("fe80::/10"), "fe80::1"), true);
  assert.equal(cidrContains(range("fe80::/10"), "fec0::1"), false);
  assert.equal(cidrContains(range("::1/128"), "::1"), true);
  assert.deepEqual(parseNetworkRule("*.Example.com:8443"), {
    kind: "domain",
    name: "example.com",
    wildcard: true,
    port: 8443,
  });
});
