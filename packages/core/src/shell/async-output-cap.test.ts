// The async output cap through real shells (dash and bash): output under the cap
// and the exit status pass unchanged; a stream past the cap is cut one byte past
// it, marked, and its command stopped at once (even one that then goes quiet);
// two streams past it only together are marked at the end; the marker goes only
// to the command, so a sweep of it leaves the script to record when it ended.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { type AsyncOutputCapInput, asyncOutputCapScript, OUTPUT_CAP_EXIT, parseRunRecord } from "./async-output-cap.js";
import { markerSweepScript } from "./marker-sweep.js";
import { composeShellCommand } from "./quote.js";

const directory = mkdtempSync(join(tmpdir(), "sandport-async-cap-"));
after(() => rmSync(directory, { recursive: true, force: true }));

let runs = 0;
type RunInput = Omit<AsyncOutputCapInput, "capMark" | "command"> & {
  readonly shell: string;
  /** The script's stdout goes to this file instead of a pipe. */
  readonly stdoutFile?: string;
};

function run(shell: string, input: RunInput) {
  runs += 1;
  const capMark = join(directory, `capped-${runs}`);
  const command = composeShellCommand({ request: { shell: input.shell } });
  const started = performance.now();
  const script = asyncOutputCapScript({ ...input, command, capMark });
  const redirected = input.stdoutFile === undefined ? script : `exec >${input.stdoutFile}\n${script}`;
  const result = spawnSync(shell, ["-c", redirected], {
    encoding: "utf8",
    timeout: 20_000,
  });
  return { ...result, ms: performance.now() - started, capped: existsSync(capMark) };
}

for (const shell of ["dash", "bash"]) {
  describe(`asyncOutputCapScript (${shell})`, () => {
    test("output under the cap and the exit status pass unchanged, the streams apart or merged in order", () => {
      const separate = run(shell, {
        shell: "printf o1; printf e1 >&2; printf o2; exit 7",
        maxOutputBytes: 100,
        merged: false,
      });
      assert.deepEqual([separate.stdout, separate.stderr, separate.status, separate.capped], ["o1o2", "e1", 7, false]);
      const merged = run(shell, {
        shell: "printf o1; sleep 0.1; printf e1 >&2; sleep 0.1; printf o2",
        maxOutputBytes: 100,
        merged: true,
      });
      assert.deepEqual([merged.stdout, merged.stderr, merged.status, merged.capped], ["o1e1o2", "", 0, false]);
    });

    test("output passes as it is written, not when the command ends", () => {
      const file = join(directory, `seen-${shell}`);
      // The command waits until the first line reached the script's stdout (a file), so buffering would hang it.
      const result = run(shell, {
        shell: `echo first; i=0; until grep -q first ${file} 2>/dev/null || [ $i -ge 100 ]; do sleep 0.05; i=$((i+1)); done; echo "waited $i"`,
        maxOutputBytes: 1000,
        merged: true,
        stdoutFile: file,
      });
      assert.equal(result.status, 0);
      assert.match(readFileSync(file, "utf8"), /^first\nwaited [0-9]\d?\n$/);
    });

    test("an endless producer is cut one byte past the cap, marked and stopped at once", () => {
      const result = run(shell, { shell: "yes", maxOutputBytes: 4096, merged: false });
      assert.equal(result.stdout, "y\n".repeat(2049).slice(0, 4097));
      assert.deepEqual([result.status, result.capped], [OUTPUT_CAP_EXIT, true]);
      assert.ok(result.ms < 10_000, `took ${result.ms} ms`);
    });

    test("a command that goes quiet past the cap is stopped without another write", () => {
      const result = run(shell, {
        shell: "head -c 5000 /dev/zero; exec sleep 30",
        maxOutputBytes: 100,
        merged: true,
      });
      assert.deepEqual([result.stdout.length, result.status, result.capped], [101, OUTPUT_CAP_EXIT, true]);
      assert.ok(result.ms < 10_000, `took ${result.ms} ms`);
    });

    test("two streams under the cap alone but past it together are marked once the command ended", () => {
      const result = run(shell, {
        shell: "head -c 60 /dev/zero; head -c 60 /dev/zero >&2; exit 3",
        maxOutputBytes: 100,
        merged: false,
      });
      assert.deepEqual([result.stdout.length, result.stderr.length], [60, 60]);
      assert.deepEqual([result.status, result.capped], [OUTPUT_CAP_EXIT, true]);
    });

    test("the marker reaches only the command: a sweep of it stops the command, and the script records the end", () => {
      const runRecord = join(directory, `run-${shell}`);
      const marker = `m-${shell}-${process.pid}`;
      // The command sweeps its own marker, as a provider's watchdog would: the script must outlive it.
      const sweep = markerSweepScript("SANDPORT_EXEC_ID", marker);
      const result = run(shell, {
        shell: `printf before; sleep 0.2; ${sweep}; echo never`,
        maxOutputBytes: 100,
        merged: true,
        marker,
        runRecord,
      });
      assert.equal(result.stdout, "before");
      assert.equal(result.capped, false);
      assert.notEqual(result.status, 0, "the swept command did not exit by itself");
      const recorded = parseRunRecord(readFileSync(runRecord, "utf8"));
      assert.equal(recorded?.maxOutputBytes, 100);
      assert.ok(recorded?.endedAt !== undefined, "the end was recorded");
      assert.ok(recorded.endedAt - recorded.startedAt >= 200, `ran ${recorded.endedAt - recorded.startedAt} ms`);
    });
  });
}

describe("asyncOutputCapScript input and records", () => {
  test("refuses a cap that is not a positive integer", () => {
    for (const cap of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => asyncOutputCapScript({ command: "true", maxOutputBytes: cap, merged: true, capMark: "m" }),
        RangeError,
      );
    }
  });

  test("parseRunRecord reads the cap and start, and an end once there is one", () => {
    assert.deepEqual(parseRunRecord("64\n1000\n"), { maxOutputBytes: 64, startedAt: 1000, endedAt: undefined });
    assert.deepEqual(parseRunRecord("64\n1000\n1500\n"), { maxOutputBytes: 64, startedAt: 1000, endedAt: 1500 });
    assert.equal(parseRunRecord("64\n"), undefined);
    assert.equal(parseRunRecord(""), undefined);
    assert.equal(parseRunRecord(undefined), undefined);
  });
});
