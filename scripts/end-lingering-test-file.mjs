// Preloaded into every test file's process by scripts/run-tests.mjs, in place of --test-force-exit.
//
// A test file's process ends by itself once its tests and after() hooks are done. One that
// something keeps alive (a vendor SDK's retry loop whose server a test stopped, a socket left open)
// would hang the run: this ends it LINGER_MS after its tests finished, with the exit code node:test
// gave it, and says on stderr what kept it alive.
//
// --test-force-exit is not used: it exits the moment a file's last test finishes, while node:test
// is still writing that file's results to the runner, and the tail of them was lost (measured on
// Node 20.20 and 22: 30 of 300 results of one file in one run of six; a full run lost the last
// results of a file). A lost failure then showed only as the file's exit code.
import { after } from "node:test";
import { isMainThread } from "node:worker_threads";

/** How long a test file's process may run on after its tests: its after() hooks run in this time. */
const LINGER_MS = Number(process.env.SANDPORT_TEST_LINGER_MS ?? 30_000);

// Only in a test file's own process, which node:test marks so (not in the runner that starts them),
// and on its main thread (a worker inherits the preload and the mark).
if (process.env.NODE_TEST_CONTEXT === "child-v8" && isMainThread) {
  // The first root after() hook: it runs once every test declared so far has finished.
  after(() => {
    setTimeout(() => {
      const alive = process.getActiveResourcesInfo().join(", ");
      process.stderr.write(`this test file still ran ${LINGER_MS} ms after its tests (alive: ${alive}): ended\n`);
      process.exit();
    }, LINGER_MS).unref();
  });
}
