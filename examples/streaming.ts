// examples/streaming.ts — output as it arrives, with `for await`.
import { LocalRuntime } from "sandport/local";

const runtime = new LocalRuntime();
const sandbox = await runtime.launch();
try {
  const request = { shell: "for i in 1 2 3; do echo tick $i; sleep 0.1; done; echo done >&2" };
  for await (const event of runtime.execStream(sandbox, request)) {
    if (event.type === "stdout" || event.type === "stderr") process.stdout.write(`${event.type}: ${event.data}`);
    if (event.type === "exited") console.log(`exit code ${event.result.exitCode}`);
  }
} finally {
  await runtime.destroy(sandbox);
}
