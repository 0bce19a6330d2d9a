import assert from "node:assert/strict";
import { test } from "node:test";
import { CASES } from "../src/cases.js";
import { slugify } from "../src/slugify.js";

for (const [input, expected] of CASES) {
  test(`slugify(${JSON.stringify(input)})`, () => assert.equal(slugify(input), expected));
}
