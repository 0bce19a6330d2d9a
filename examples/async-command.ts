// examples/async-command.ts — start a command, come back for it later (even from another process).

import { setTimeout as delay } from "node:timers/promises";
import { LocalRuntime } from "sandport/local";

const runtime = new LocalRuntime();
const sandbox = await runtime.launch();
try {
  // The session id is the idempotency key: starting it again returns the same command.
  const ref = await runtime.startCommand(sandbox, { sessionId: "build-1", shell: "sleep 0.3; echo built" });
  while ((await runtime.commandStatus(sandbox, ref)).state === "running") await delay(50);
  const logs = await runtime.commandLogs(sandbox, ref);
  console.log(logs.exitCode, logs.stdout.trim());
} finally {
  await runtime.destroy(sandbox);
}
