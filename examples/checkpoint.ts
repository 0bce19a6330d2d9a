// examples/checkpoint.ts — prepare once, try three attempts from that state, keep the one whose test passes.
import { resolveCapabilities } from "sandport";
import { LocalRuntime } from "sandport/local";

const runtime = new LocalRuntime();
const prepared = await runtime.launch();
await runtime.writeFiles(prepared, [{ path: "test.sh", content: 'test "$(cat answer.txt)" = 42\n', mode: 0o755 }]);
// Where the runtime forks, each attempt is a fork of the prepared sandbox; elsewhere, a launch from a snapshot of it.
const forks = resolveCapabilities(runtime).fork === true;
const snapshot = forks ? undefined : await runtime.snapshot(prepared, { labels: { step: "prepared" } });

try {
  const attempts = await Promise.all(
    ["41", "42", "43"].map(async (guess) => {
      const sandbox = snapshot ? await runtime.launch({ from: snapshot }) : await runtime.fork(prepared);
      await runtime.writeFiles(sandbox, [{ path: "answer.txt", content: `${guess}\n` }]);
      const test = await runtime.exec(sandbox, { argv: ["./test.sh"] });
      return { sandbox, guess, passed: test.exitCode === 0 };
    }),
  );
  const kept = attempts.find((attempt) => attempt.passed);
  for (const attempt of attempts) if (attempt !== kept) await runtime.destroy(attempt.sandbox);
  console.log(`kept the attempt that answered ${kept?.guess} (${forks ? "forked" : "from a snapshot"})`);
  if (kept) await runtime.destroy(kept.sandbox);
} finally {
  await runtime.destroy(prepared);
  if (snapshot) await runtime.deleteSnapshot(snapshot);
}
console.log(`snapshots left: ${(await runtime.listSnapshots({ step: "prepared" })).length}`);
