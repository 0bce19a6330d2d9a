import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RECENT_SANDBOXES, RecentMap } from "./recent-map.js";

describe("RecentMap", () => {
  test("past its capacity it forgets the least recently used: a read or a write counts as a use", () => {
    const map = new RecentMap<string, number>(3);
    map.set("a", 1);
    map.set("b", 2);
    map.set("c", 3);
    assert.equal(map.get("a"), 1);
    map.set("d", 4);
    assert.deepEqual(
      ["a", "b", "c", "d"].map((key) => map.has(key)),
      [true, false, true, true],
    );
    map.set("c", 30);
    map.set("e", 5);
    assert.deepEqual(
      ["a", "c", "d", "e"].map((key) => map.get(key)),
      [undefined, 30, 4, 5],
    );
    assert.equal(map.size, 3);
  });

  test("has is not a use; delete forgets; an undefined value is kept as one", () => {
    const map = new RecentMap<string, number | undefined>(2);
    map.set("a", undefined);
    map.set("b", 2);
    assert.equal(map.has("a"), true);
    map.set("c", 3);
    assert.equal(map.has("a"), false);
    assert.equal(map.delete("b"), true);
    assert.equal(map.delete("b"), false);
    assert.equal(map.size, 1);
  });

  test("the default capacity holds RECENT_SANDBOXES entries, and no more", () => {
    const map = new RecentMap<number, number>();
    for (let index = 0; index <= RECENT_SANDBOXES; index++) map.set(index, index);
    assert.deepEqual(
      [map.size, map.has(0), map.has(1), map.has(RECENT_SANDBOXES)],
      [RECENT_SANDBOXES, false, true, true],
    );
  });
});
