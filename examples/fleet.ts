// examples/fleet.ts — warm sandboxes from a pool on the local runtime, behind a limiter: a lease is a sandbox
// already launched, a release cleans its workspace for the next lease, and close reports what it destroyed.
import { limitRuntime, SandboxPool } from "sandport/core";
import { LocalRuntime } from "sandport/local";

// At most 2 launches at once and 4 live sandboxes; a launch waits in the queue at most 30 s.
const runtime = limitRuntime(new LocalRuntime(), { maxLaunchesInFlight: 2, maxLive: 4, queueDeadlineMs: 30_000 });
// Opening destroys what an earlier process left under this pool id, then launches 2 sandboxes to keep ready.
const pool = await SandboxPool.open(runtime, { poolId: "example-fleet", minIdle: 2, max: 4, reset: "clean-workspace" });
await pool.whenSettled();
console.log("ready:", pool.stats().idle);

for (const job of ["first", "second"]) {
  const lease = await pool.lease({ timeoutMs: 10_000 });
  try {
    const before = await runtime.exec(lease.handle, { shell: "ls -A | grep -c note.txt || true" });
    await runtime.writeFiles(lease.handle, [{ path: "note.txt", content: job }]);
    console.log(`${job} job: notes found before it ${before.stdout.trim()}`);
  } finally {
    await pool.release(lease); // the workspace is emptied back to its launch layout; the sandbox stays warm
  }
}

const report = await pool.close();
console.log("closed:", report.ok, `${report.destroyed.length} destroyed`);
