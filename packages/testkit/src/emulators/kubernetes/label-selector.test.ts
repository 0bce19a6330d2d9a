// Label selector strings as the API server parses them (README.md: labelSelector rule).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseLabelSelector } from "./label-selector.js";
import { KubeApiError } from "./status.js";

describe("label selectors", () => {
  const labels = { app: "web", tier: "front", "agents.x-k8s.io/owner": "me" };

  test("each requirement form, and commas as AND", () => {
    const cases: Array<[string, boolean]> = [
      ["", true],
      ["app=web", true],
      ["app==web", true],
      ["app!=web", false],
      ["app!=db", true],
      ["missing!=x", true],
      ["tier in (front, back)", true],
      ["tier notin (front)", false],
      ["missing notin (a)", true],
      ["agents.x-k8s.io/owner", true],
      ["!agents.x-k8s.io/owner", false],
      ["!missing", true],
      ["app=web,tier in (back)", false],
      ["app=web, tier in (front,back), !missing", true],
    ];
    for (const [selector, expected] of cases) assert.equal(parseLabelSelector(selector)(labels), expected, selector);
  });

  test("malformed selectors are 400 BadRequest", () => {
    for (const selector of ["a=(", "in (a)", "a in b", "=x", "a=b=c"]) {
      assert.throws(
        () => parseLabelSelector(selector),
        (error: unknown) => error instanceof KubeApiError && error.code === 400 && error.reason === "BadRequest",
        selector,
      );
    }
  });
});
