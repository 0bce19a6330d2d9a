import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ExecOutputEvent } from "../port/exec-event.js";
import { ByteOutputCollector } from "./byte-output-collector.js";

const utf8 = (text: string) => new TextEncoder().encode(text);

describe("ByteOutputCollector", () => {
  test("keeps exact bytes per event and decodes a character split across chunks once", () => {
    const events: ExecOutputEvent[] = [];
    const collector = new ByteOutputCollector(100, (event) => events.push(event));
    const snowman = utf8("☃");
    collector.push("stdout", Uint8Array.of(0x61, ...snowman.subarray(0, 2)));
    collector.push("stdout", Uint8Array.of(...snowman.subarray(2), 0xff, 0x00));
    collector.push("stderr", utf8("err"));
    collector.finish();
    assert.deepEqual(
      events.map((event) => [event.type, event.data, [...event.bytes]]),
      [
        ["stdout", "a", [0x61, 0xe2, 0x98]],
        ["stdout", "☃\ufffd\u0000", [0x83, 0xff, 0x00]],
        ["stderr", "err", [...utf8("err")]],
      ],
    );
    assert.equal(collector.stdout, "a☃\ufffd\u0000");
    assert.equal(collector.stderr, "err");
    assert.equal(collector.truncated, false);
  });

  test("caps stdout + stderr together, exactly at the cap, and overflows once", () => {
    let overflows = 0;
    const kept: number[] = [];
    const collector = new ByteOutputCollector(
      6,
      (event) => kept.push(...event.bytes),
      () => overflows++,
    );
    collector.push("stdout", utf8("abcd"));
    collector.push("stderr", utf8("efgh"));
    collector.push("stdout", utf8("more"));
    assert.deepEqual(Buffer.from(kept).toString(), "abcdef");
    assert.equal(collector.stdout, "abcd");
    assert.equal(collector.stderr, "ef");
    assert.equal(collector.truncated, true);
    assert.equal(overflows, 1);
    const exact = new ByteOutputCollector(3);
    exact.push("stdout", utf8("abc"));
    assert.equal(exact.truncated, false, "exactly the cap is not truncated");
  });

  test("a cut inside a UTF-8 character keeps the character out; binary data keeps every allowed byte", () => {
    const text = new ByteOutputCollector(4);
    text.push("stdout", utf8("ab☃"));
    text.finish();
    assert.equal(text.stdout, "ab", "the snowman's first byte is not kept alone");
    const binary = new ByteOutputCollector(4);
    const events: ExecOutputEvent[] = [];
    const recording = new ByteOutputCollector(4, (event) => events.push(event));
    binary.push("stdout", Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80));
    recording.push("stdout", Uint8Array.of(1, 0x80, 0x80, 0x80, 0x80, 0x80));
    assert.deepEqual([...(events[0]?.bytes ?? [])], [1, 0x80, 0x80, 0x80]);
    assert.equal(binary.truncated, true);
  });

  test("copies each chunk, so a provider reusing its buffer cannot change what was kept", () => {
    const events: ExecOutputEvent[] = [];
    const collector = new ByteOutputCollector(10, (event) => events.push(event));
    const buffer = utf8("abc");
    collector.push("stdout", buffer);
    buffer.fill(0x7a);
    assert.deepEqual([...(events[0]?.bytes ?? [])], [...utf8("abc")]);
  });
});
