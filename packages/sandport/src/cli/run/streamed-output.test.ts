// What `run` prints of a command's output at its exit, given what the stream showed and what the result holds.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Terminal } from "../output/terminal.js";
import { StreamedOutput } from "./streamed-output.js";

/** A StreamedOutput writing to strings, and a terminal that knows the local runtime's constructor. */
function capture() {
  const written = { stdout: "", stderr: "" };
  const streams = {
    stdout: { write: (text: string) => (written.stdout += text) },
    stderr: { write: (text: string) => (written.stderr += text) },
  };
  const terminal = new Terminal(streams.stdout, streams.stderr, { NO_COLOR: "1" });
  return { written, output: new StreamedOutput(terminal, streams) };
}

describe("StreamedOutput", () => {
  test("a stream that showed everything: nothing more", () => {
    const { written, output } = capture();
    output.write("stdout", "out\n");
    output.write("stderr", "err\n");
    output.finish({ stdout: "out\n", stderr: "err\n" });
    assert.deepEqual(written, { stdout: "out\n", stderr: "err\n" });
  });

  test("a runtime that cannot stream: the whole result, untouched", () => {
    const { written, output } = capture();
    output.finish({ stdout: "out\n", stderr: "sandport: tool: spawn tool ENOENT\n" });
    assert.deepEqual(written, { stdout: "out\n", stderr: "sandport: tool: spawn tool ENOENT\n" });
  });

  test("a stream that lost its tail: the rest of the result", () => {
    const { written, output } = capture();
    output.write("stdout", "one\ntw");
    output.finish({ stdout: "one\ntwo\nthree\n", stderr: "" });
    assert.equal(written.stdout, "one\ntwo\nthree\n");
  });

  test("a result that says something else: its lines the stream did not show", () => {
    const { written, output } = capture();
    output.write("stderr", "bwrap: execvp tool: No such file or directory\n");
    output.finish({ stdout: "", stderr: "sandport: tool: not found inside the sandbox\n" });
    assert.equal(
      written.stderr,
      "bwrap: execvp tool: No such file or directory\nsandport: tool: not found inside the sandbox\n",
    );
  });

  test("a result cut shorter than the stream (an output cap): nothing more", () => {
    const { written, output } = capture();
    output.write("stdout", "aaaa\nbbbb\n");
    output.finish({ stdout: "aaaa\nbb", stderr: "" });
    assert.equal(written.stdout, "aaaa\nbbbb\n");
  });
});
