// How a port network policy becomes Vercel's networkPolicy: allow lists as the user-defined policy
// (domains in allow, ranges in subnets.allow), and a domain with a port refused by name.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError, validateNetworkPolicy } from "@sandport/core";
import { vercelNetworkPolicy } from "./network-plan.js";

const policy = (allow: string[]) => validateNetworkPolicy({ allow });

test('"all", "none", an empty list and the default are allow-all or deny-all', () => {
  assert.equal(vercelNetworkPolicy("all", false), "allow-all");
  assert.equal(vercelNetworkPolicy("none", true), "deny-all");
  assert.equal(vercelNetworkPolicy(policy([]), true), "deny-all");
  assert.equal(vercelNetworkPolicy(undefined, true), "allow-all");
  assert.equal(vercelNetworkPolicy(undefined, false), "deny-all");
});

test("an allow list puts its domains in allow and its ranges in subnets.allow", () => {
  assert.deepEqual(vercelNetworkPolicy(policy(["Example.com", "*.npmjs.org", "10.0.0.0/8", "2001:db8::/32"]), true), {
    allow: ["example.com", "*.npmjs.org"],
    subnets: { allow: ["10.0.0.0/8", "2001:db8::/32"] },
  });
  assert.deepEqual(vercelNetworkPolicy(policy(["github.com"]), true), { allow: ["github.com"] });
  assert.deepEqual(vercelNetworkPolicy(policy(["127.0.0.1/32"]), true), {
    allow: [],
    subnets: { allow: ["127.0.0.1/32"] },
  });
});

test("a domain with a port is refused UNSUPPORTED, naming the entry", () => {
  for (const entry of ["api.example.com:443", "*.example.com:8080"]) {
    assert.throws(
      () => vercelNetworkPolicy(policy(["example.com", entry]), true),
      (error: unknown) =>
        error instanceof SandportError &&
        error.code === "UNSUPPORTED" &&
        error.provider === "vercel" &&
        error.details.entry === entry &&
        error.message.includes(JSON.stringify(entry)),
      entry,
    );
  }
});
