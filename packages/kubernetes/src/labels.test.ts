import assert from "node:assert/strict";
import { test } from "node:test";
import { LAUNCH_KEY_LABEL, OWNER_LABEL } from "@sandport/core";
import { decodeLabels, encodeLabels, kubernetesLabel, LABELS_ANNOTATION, labelSelector } from "./labels.js";

/** Kubernetes' own rules (apimachinery validation): a qualified name and a label value. */
const NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

test("labels Kubernetes would refuse as they are become valid digest labels, and the annotation gives them back", () => {
  const labels = { "team/ml": "résumé — 256 chars? no, but spaces", "x.": "", job: "a".repeat(256) };
  const stored = encodeLabels("ci", labels, "key-1");
  for (const [key, value] of Object.entries(stored.labels)) {
    assert.match(key, NAME);
    assert.ok((key.split("/")[1]?.length ?? 0) <= 63);
    assert.match(value, VALUE);
  }
  assert.equal(Object.keys(stored.labels).length, 5, "three labels, the owner and the launch key");
  assert.deepEqual(decodeLabels(stored.labels, stored.annotations), {
    ...labels,
    [OWNER_LABEL]: "ci",
    [LAUNCH_KEY_LABEL]: "key-1",
  });
});

test("an annotation label without its digest label does not count, so a hand edit cannot make a claim ours", () => {
  const stored = encodeLabels("ci", { job: "1" }, "key-1");
  const forged = JSON.stringify({
    ...JSON.parse(stored.annotations[LABELS_ANNOTATION] as string),
    [OWNER_LABEL]: "other",
  });
  const decoded = decodeLabels(stored.labels, { [LABELS_ANNOTATION]: forged });
  assert.equal(decoded?.[OWNER_LABEL], undefined);
  assert.equal(decoded?.job, "1");
  assert.equal(decodeLabels(stored.labels, {}), undefined);
  assert.equal(decodeLabels(stored.labels, { [LABELS_ANNOTATION]: "not json" }), undefined);
});

test("the selector names the digest label of every queried label", () => {
  const selector = labelSelector({ job: "1", [OWNER_LABEL]: "ci" });
  assert.deepEqual(
    selector.split(",").sort(),
    [kubernetesLabel("job", "1").join("="), kubernetesLabel(OWNER_LABEL, "ci").join("=")].sort(),
  );
});

test("labels past the annotation budget are refused before any request", () => {
  const many = Object.fromEntries(Array.from({ length: 600 }, (_, index) => [`k${index}`, "v".repeat(256)]));
  assert.throws(() => encodeLabels("ci", many, "key"), { code: "INVALID_REQUEST" });
});
