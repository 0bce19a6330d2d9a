import assert from "node:assert/strict";
import { test } from "node:test";
import { int32, ProtoWriter, readFields } from "./protobuf.js";
import { startEvent } from "./sandboxd.js";

test("varints round-trip, negatives as ten-byte two's complement (protobuf's int32)", () => {
  const encoded = new ProtoWriter().varint(1, 300).varint(2, -1).finish();
  assert.deepEqual([...encoded.subarray(0, 3)], [0x08, 0xac, 0x02]);
  assert.equal(encoded.byteLength, 3 + 1 + 10);
  const fields = readFields(encoded);
  assert.deepEqual(
    fields.map((field) => ("varint" in field ? int32(field.varint) : -999)),
    [300, -1],
  );
});

test("Start events decode: init, stdout bytes, an exit of 0 (an empty message), an exit by signal (-1)", () => {
  const message = (field: number, inner: Uint8Array) => new ProtoWriter().present(field, inner).finish();
  assert.deepEqual(startEvent(message(1, new ProtoWriter().varint(1, 42).finish())), { kind: "init", processId: 42 });
  const stdout = startEvent(message(2, Uint8Array.of(0, 255)));
  assert.equal(stdout.kind, "stdout");
  assert.deepEqual([...(stdout as { data: Uint8Array }).data], [0, 255]);
  assert.deepEqual(startEvent(message(4, new Uint8Array())), { kind: "exit", exitCode: 0 });
  assert.deepEqual(startEvent(message(4, new ProtoWriter().varint(1, -1).finish())), { kind: "exit", exitCode: -1 });
  assert.throws(() => startEvent(new Uint8Array()), { name: "KubernetesMalformedAnswer" });
});

test("a field cut short is a malformed answer, not a silent truncation", () => {
  assert.throws(() => readFields(Uint8Array.of(0x12, 0x05, 0x01)), { name: "KubernetesMalformedAnswer" });
});
