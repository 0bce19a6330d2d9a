// The output-capping script through a real sh: each stream stops one byte past
// its limit, an endless producer dies of SIGPIPE, and the exit status, stdin
// and separate streams come through unchanged.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { cappedOutputScript } from "./output-cap.js";
import { composeShellCommand } from "./quote.js";

function run(command: string, limit: number, input?: string) {
  const started = performance.now();
  const result = spawnSync("sh", ["-c", cappedOutputScript(command, limit)], {
    encoding: "utf8",
    input: input ?? "",
    timeout: 10_000,
  });
  return { ...result, ms: performance.now() - started };
}

describe("cappedOutputScript", () => {
  test("output under the limit, the exit status and stdin come through unchanged, streams apart", () => {
    const result = run("printf out-1; printf err-1 >&2; printf out-2; printf err-2 >&2; exit 7", 100);
    assert.deepEqual([result.stdout, result.stderr, result.status], ["out-1out-2", "err-1err-2", 7]);
    assert.equal(run("cat", 100, "from stdin\n").stdout, "from stdin\n");
  });

  test("each stream is cut after the limit; an endless producer is killed by SIGPIPE at once", () => {
    const capped = run("printf '%0300d' 0; printf '%0200d' 1 >&2", 101);
    assert.deepEqual([capped.stdout.length, capped.stderr.length], [101, 101]);
    const endless = run("yes", 4097);
    assert.equal(endless.stdout, "y\n".repeat(2049).slice(0, 4097));
    assert.equal(endless.status, 141, "yes died of SIGPIPE");
    assert.ok(endless.ms < 5_000, `took ${endless.ms} ms`);
  });

  test("an exec in the command replaces only its subshell; the plumbing descriptors are closed for it", () => {
    const probe = 'for fd in 3 4 5 6; do if [ -e "/proc/$$/fd/$fd" ]; then printf "%s," "$fd"; fi; done; exit 3';
    const result = run(composeShellCommand({ request: { argv: ["sh", "-c", probe] } }), 1000);
    assert.equal(result.status, 3);
    assert.equal(result.stdout, "", "descriptors 3-6 are closed for the command");
  });

  test("refuses a limit that is not a positive integer", () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) assert.throws(() => cappedOutputScript("true", limit), RangeError);
  });
});
