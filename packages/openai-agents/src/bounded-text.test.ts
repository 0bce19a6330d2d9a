import assert from "node:assert/strict";
import { test } from "node:test";
import { BoundedText } from "./bounded-text.js";

test("keeps the newest characters within its limit, counts the dropped ones, and starts afresh after take", () => {
  const text = new BoundedText(5);
  text.append("abc");
  assert.equal(text.take(), "abc");
  text.append("abcd");
  text.append("efg");
  assert.equal(text.take(), "[...2 characters truncated from process output...]\ncdefg");
  text.append("0123456789");
  text.append("");
  assert.equal(text.take(), "[...5 characters truncated from process output...]\n56789");
  assert.equal(text.take(), "");
});
