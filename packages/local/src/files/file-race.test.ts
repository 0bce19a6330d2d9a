// File operations while a command in the sandbox flips a directory and a symlink to a host folder as
// fast as it can (renameat2 with RENAME_EXCHANGE): every check-then-use race the host side could lose
// is tried hundreds of times. Nothing may land outside, be read, listed or removed there.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SandportError } from "@sandport/core";
import { LocalRuntime } from "../index.js";
import { bwrapSkipReason, temporaryDirectory, waitFor } from "../runtime.fixture.js";

const skipNamespaces = await bwrapSkipReason();
const root = temporaryDirectory("race");
after(() => root.remove());

/** `renameat2`'s system call number, for perl's `syscall`. */
const RENAMEAT2: Partial<Record<string, number>> = { x64: 316, arm64: 276 };
const skipArchitecture = RENAMEAT2[process.arch] === undefined ? `no renameat2 number for ${process.arch}` : undefined;
const ROUNDS = 300;

/** A perl loop that swaps race/d (a directory) and race/l (a symlink to `target`) until killed. */
function flipper(target: string): string {
  const script = [
    'mkdir "race"; mkdir "race/d";',
    `symlink(${JSON.stringify(target)}, "race/l") or die "symlink: $!";`,
    'open(my $ready, ">", "race/ready") or die; close $ready;',
    // perl's syscall wants modifiable strings, hence the variables.
    'my ($from, $to) = ("race/d", "race/l");',
    `while (1) { syscall(${RENAMEAT2[process.arch]}, -100, $from, -100, $to, 2) == 0 or die "renameat2: $!"; }`,
  ].join(" ");
  return script;
}

for (const isolation of ["namespaces", "none"] as const) {
  describe(`${isolation}: file operations racing a command that swaps a directory for a symlink`, {
    skip: skipArchitecture ?? (isolation === "namespaces" ? skipNamespaces : undefined),
  }, () => {
    test(`${ROUNDS} rounds of write, read, streamed read, list, stat, mkdir and remove reach nothing outside`, async () => {
      const outside = temporaryDirectory("race-outside");
      writeFileSync(join(outside.path, "secret.txt"), "host secret");
      mkdirSync(join(outside.path, "victim"));
      writeFileSync(join(outside.path, "victim", "keep.txt"), "keep");
      const runtime = new LocalRuntime({ root: root.path, isolation, killGraceMs: 50 });
      const handle = await runtime.launch();
      const stop = new AbortController();
      const running = runtime
        .exec(handle, { argv: ["perl", "-e", flipper(outside.path)] }, { signal: stop.signal })
        .catch((error: unknown) => error);
      const outcomes = { succeeded: 0, refused: 0, missing: 0 };
      const tally = async (operation: () => Promise<unknown>) => {
        try {
          await operation();
          outcomes.succeeded++;
        } catch (error) {
          if (SandportError.hasCode(error, "INVALID_REQUEST")) outcomes.refused++;
          else if (SandportError.hasCode(error, "NOT_FOUND")) outcomes.missing++;
          else throw error;
        }
      };
      try {
        const ready = await waitFor(async () => {
          return await runtime.stat(handle, "race/ready").then(
            () => true,
            () => false,
          );
        }, 10_000);
        assert.ok(ready, "the flipping command started");
        for (let round = 0; round < ROUNDS; round++) {
          await tally(() => runtime.writeFiles(handle, [{ path: `race/d/written-${round}`, content: "x" }]));
          await tally(async () => {
            const bytes = await runtime.readFile(handle, "race/d/secret.txt");
            assert.notEqual(new TextDecoder().decode(bytes), "host secret", "a host file was read");
          });
          await tally(async () => {
            const names = (await runtime.listDir(handle, "race/d")).map((entry) => entry.name);
            assert.ok(!names.includes("secret.txt") && !names.includes("victim"), `a host folder was listed: ${names}`);
          });
          await tally(async () => {
            const chunks: Uint8Array[] = [];
            for await (const chunk of runtime.readFileStream!(handle, "race/d/secret.txt")) chunks.push(chunk);
            assert.notEqual(Buffer.concat(chunks).toString(), "host secret", "a host file was streamed");
          });
          await tally(() => runtime.stat(handle, "race/d/secret.txt"));
          await tally(() => runtime.mkdir(handle, `race/d/made-${round}`));
          await tally(() => runtime.remove(handle, "race/d/victim"));
        }
      } finally {
        stop.abort();
        await running;
      }
      try {
        assert.deepEqual(readdirSync(outside.path).sort(), ["secret.txt", "victim"], "nothing was created outside");
        assert.equal(readFileSync(join(outside.path, "secret.txt"), "utf8"), "host secret");
        assert.deepEqual(readdirSync(join(outside.path, "victim")), ["keep.txt"], "nothing outside was removed");
        // The race was real: some operations met the symlink and were refused, others went through.
        assert.ok(outcomes.refused > 0, `no operation met the symlink: ${JSON.stringify(outcomes)}`);
        assert.ok(outcomes.succeeded > 0, `no operation went through: ${JSON.stringify(outcomes)}`);
      } finally {
        await runtime.destroy(handle);
        outside.remove();
      }
    });
  });
}
