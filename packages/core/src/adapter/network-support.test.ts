import assert from "node:assert/strict";
import { test } from "node:test";
import { SandportError } from "../errors/sandport-error.js";
import { networkEnabled, refuseUnenforceableNetwork } from "./network-support.js";

const code = (run: () => unknown) => {
  try {
    run();
    return "passed";
  } catch (error) {
    assert.ok(error instanceof SandportError);
    return error.code;
  }
};

test("an allow list is refused where only all-or-none (or nothing) is enforced, never widened", () => {
  for (const support of ["all-or-none", "unsupported", "not-exposed", "unknown"] as const) {
    assert.equal(
      code(() => refuseUnenforceableNetwork({ allow: ["a.com"] }, support, "p")),
      "UNSUPPORTED",
      support,
    );
    assert.equal(
      code(() => refuseUnenforceableNetwork({ allow: [] }, support, "p")),
      "UNSUPPORTED",
      support,
    );
    assert.equal(
      code(() => refuseUnenforceableNetwork("all", support, "p")),
      "passed",
    );
    assert.equal(
      code(() => refuseUnenforceableNetwork("none", support, "p")),
      "passed",
    );
    assert.equal(
      code(() => refuseUnenforceableNetwork(undefined, support, "p")),
      "passed",
    );
  }
});

test("a CIDR-only runtime takes ranges and refuses a domain; a domains runtime takes both", () => {
  assert.equal(
    code(() => refuseUnenforceableNetwork({ allow: ["10.0.0.0/8"] }, "cidr", "p")),
    "passed",
  );
  assert.equal(
    code(() => refuseUnenforceableNetwork({ allow: ["10.0.0.0/8", "a.com"] }, "cidr", "p")),
    "UNSUPPORTED",
  );
  assert.equal(
    code(() => refuseUnenforceableNetwork({ allow: ["10.0.0.0/8", "a.com"] }, "domains", "p")),
    "passed",
  );
});

test("networkEnabled reads all and none, falls back when absent, and refuses an allow list", () => {
  assert.equal(networkEnabled("all", false, "p"), true);
  assert.equal(networkEnabled("none", true, "p"), false);
  assert.equal(networkEnabled(undefined, true, "p"), true);
  assert.equal(
    code(() => networkEnabled({ allow: ["a.com"] }, true, "p")),
    "UNSUPPORTED",
  );
});
