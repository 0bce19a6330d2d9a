// A running command's unread output is bounded between polls, as in the
// framework's UnixLocal sandbox: the newest characters are kept and the report
// says how many were dropped. Against a real LocalRuntime.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Manifest } from "@openai/agents-core/sandbox";
import { localTestRuntime } from "@sandport/testkit/fakes";
import { SandportSandboxClient } from "./index.js";

const local = await localTestRuntime("openai-running");
after(() => local.cleanup());

const TOTAL = 2_500_000;
/** What UnixLocal keeps of a stream between polls: 1 MiB characters. */
const CAP = 1024 * 1024;
const DROPPED = /^\[\.\.\.(\d+) characters truncated from process output\.\.\.\]\n/;

/** The characters a report's output stands for: those it shows plus those its marker says were dropped. */
function accounted(output: string): { shown: string; dropped: number } {
  const marker = DROPPED.exec(output);
  return marker ? { shown: output.slice(marker[0].length), dropped: Number(marker[1]) } : { shown: output, dropped: 0 };
}

test("2.5 MB of output nobody read: the report keeps the last 1 MiB characters and says how many it dropped", async () => {
  const sandbox = await new SandportSandboxClient({ runtime: local.runtime }).create({ manifest: new Manifest() });
  try {
    // The command waits for a line, sent only after the first report, then prints 2.5 MB of "a" and "END" and exits:
    // all of it arrives between two polls.
    const command = `read line; head -c ${TOTAL} /dev/zero | tr '\\0' a; echo END`;
    const first = await sandbox.exec({ cmd: command, yieldTimeMs: 50 });
    assert.equal(typeof first.sessionId, "number");
    const reply = await sandbox.writeStdin({ sessionId: first.sessionId as number, chars: "\n", yieldTimeMs: 30_000 });
    assert.match(reply, /Process exited with code 0/);
    const output = reply.slice(reply.indexOf("Output:\n") + "Output:\n".length);
    const second = accounted(output);
    assert.ok(second.dropped > 0, "the unread output passed the cap, so the report says what it dropped");
    assert.equal(second.shown.length, CAP);
    assert.ok(second.shown.endsWith("aaaaEND\n"), "the newest output is what is kept");
    // Nothing is lost without being counted: shown plus dropped, over both reports, is all the command printed.
    const earlier = accounted(first.output);
    assert.equal(earlier.shown.length + earlier.dropped + second.shown.length + second.dropped, TOTAL + "END\n".length);
  } finally {
    await sandbox.delete();
  }
});

test("with a token budget too, the report still says how many characters were dropped", async () => {
  const sandbox = await new SandportSandboxClient({ runtime: local.runtime }).create({ manifest: new Manifest() });
  try {
    const command = `read line; head -c ${TOTAL} /dev/zero | tr '\\0' a; echo END`;
    const first = await sandbox.exec({ cmd: command, yieldTimeMs: 50 });
    const reply = await sandbox.writeStdin({
      sessionId: first.sessionId as number,
      chars: "\n",
      yieldTimeMs: 30_000,
      maxOutputTokens: 20,
    });
    assert.match(reply, /Process exited with code 0/);
    const output = reply.slice(reply.indexOf("Output:\n") + "Output:\n".length);
    assert.match(output, DROPPED, "the drop notice leads the output, whole");
    assert.ok(output.length < 2_000);
    assert.ok(output.endsWith("END\n"), "the newest output is still what ends it");
  } finally {
    await sandbox.delete();
  }
});
