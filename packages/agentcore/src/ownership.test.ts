// Session names: the digest name of a launch with labels or env, and the name
// that carries the launch key itself; each is read back as what it is.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keyedSessionName, labelsFromName, nameMatches, readName, sessionName } from "./ownership.js";

test("a keyed name carries the launch key and gives the owner's labels; a digest name is read as before", () => {
  const keyed = keyedSessionName("me", "deadbeef");
  assert.match(keyed ?? "", /^sandport_[0-9a-f]{16}_deadbeef$/);
  const marks = readName(keyed);
  assert.equal(marks?.key, "deadbeef", "an 8-hex-digit key is not taken for a digest");
  assert.deepEqual({ ...labelsFromName(marks!, "me") }, { "sandport.owner": "me", "sandport.launch-key": "deadbeef" });
  assert.equal(labelsFromName(marks!, "someone-else"), undefined);
  assert.ok(nameMatches(marks, "me", { "sandport.launch-key": "deadbeef" }));
  assert.ok(!nameMatches(marks, "me", { "sandport.launch-key": "other" }));
  assert.ok(!nameMatches(marks, "me", { team: "alpha" }));
  assert.ok(!nameMatches(marks, "someone-else"));

  const digests = readName(sessionName("me", { team: "alpha" }, "deadbeef"));
  assert.equal(digests?.key, undefined);
  assert.ok(nameMatches(digests, "me", { team: "alpha", "sandport.launch-key": "deadbeef" }));
  assert.equal(labelsFromName(digests!, "me"), undefined, "its labels are in its labels file");
  assert.equal(readName(sessionName("me", undefined, "k"))?.key, undefined);
});

test("a launch key that does not fit the name gets no keyed name", () => {
  assert.ok(keyedSessionName("me", "k".repeat(74)));
  assert.equal(keyedSessionName("me", "k".repeat(75)), undefined);
  assert.equal(readName("sandport_0123456789abcdef_bad key"), undefined);
});
