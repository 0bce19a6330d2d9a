// How a port network policy becomes E2B's egress fields: allow lists as
// allowOut under a deny-all, and the entries E2B cannot express refused by name.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError, validateNetworkPolicy } from "@sandport/core";
import { e2bEgress } from "./network-plan.js";

const policy = (allow: string[]) => validateNetworkPolicy({ allow });

test('"all", "none" and the default are allowInternetAccess alone', () => {
  assert.deepEqual(e2bEgress("all", false), { allowInternetAccess: true });
  assert.deepEqual(e2bEgress("none", true), { allowInternetAccess: false });
  assert.deepEqual(e2bEgress(undefined, true), { allowInternetAccess: true });
  assert.deepEqual(e2bEgress(undefined, false), { allowInternetAccess: false });
});

test("an allow list is allowOut under denyOut 0.0.0.0/0, with the internet off as well", () => {
  assert.deepEqual(e2bEgress(policy(["Example.com", "*.npmjs.org", "203.0.113.0/24", "127.0.0.1/32"]), true), {
    allowInternetAccess: false,
    allowOut: ["example.com", "*.npmjs.org", "203.0.113.0/24", "127.0.0.1/32"],
    denyOut: ["0.0.0.0/0"],
  });
});

test("an empty allow list is no network at all", () => {
  assert.deepEqual(e2bEgress(policy([]), true), { allowInternetAccess: false });
});

test("a domain with a port and an IPv6 range are refused UNSUPPORTED, naming the entry", () => {
  for (const entry of ["api.example.com:443", "*.example.com:8080", "2001:db8::/32", "::1/128"]) {
    assert.throws(
      () => e2bEgress(policy(["example.com", entry]), true),
      (error: unknown) =>
        error instanceof SandportError &&
        error.code === "UNSUPPORTED" &&
        error.provider === "e2b" &&
        error.details.entry === entry &&
        error.message.includes(JSON.stringify(entry)),
      entry,
    );
  }
});
