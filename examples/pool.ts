// examples/pool.ts — a warm pool on the local runtime, step by step: open it, lease a sandbox already launched,
// run in it, release it (its workspace is cleaned for the next lease), and close with the report of what it did.
import { SandboxPool } from "sandport/core";
import { LocalRuntime } from "sandport/local";

const runtime = new LocalRuntime();
const pool = await SandboxPool.open(runtime, { poolId: "example-pool", minIdle: 1, max: 2, reset: "clean-workspace" });

const lease = await pool.lease({ timeoutMs: 30_000 });
try {
  await runtime.writeFiles(lease.handle, [{ path: "input.txt", content: "warm\n" }]);
  const result = await runtime.exec(lease.handle, { argv: ["cat", "input.txt"] });
  console.log(`ran in a warm sandbox: ${result.stdout.trim()}`);
} finally {
  await pool.release(lease);
}

const report = await pool.close();
console.log(`closed: ok ${report.ok}, destroyed ${report.destroyed.length}, failures ${report.failures.length}`);
